//! Bit gathering shared by the pattern evaluation and the endgame solver.

/// The bits of `bits` on the squares of `mask`, gathered into the low bits in index
/// order (BMI2's `pext`; a loop over the mask's bits where the build lacks BMI2).
#[inline]
pub(crate) fn gather(bits: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: this build targets CPUs with BMI2 (target_feature = "bmi2"), which
        // have the pext instruction.
        unsafe { std::arch::x86_64::_pext_u64(bits, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        gather_portable(bits, mask)
    }
}

/// [`gather`] without BMI2: one step per bit of `mask`.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "bmi2"))))]
fn gather_portable(bits: u64, mask: u64) -> u64 {
    let (mut out, mut mask, mut bit) = (0, mask, 1);
    while mask != 0 {
        if bits & mask & mask.wrapping_neg() != 0 {
            out |= bit;
        }
        mask &= mask - 1;
        bit <<= 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_of_gathering_agree() {
        assert_eq!(gather_portable(0b1011_0110, 0b1111_0000), 0b1011);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..10_000 {
            // xorshift: bits and masks of every density.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (bits, mask) = (x, x.rotate_left(23) & x.rotate_left(41));
            assert_eq!(gather(bits, mask), gather_portable(bits, mask), "{bits:#x} {mask:#x}");
        }
    }
}
