//! The weights file: `OAPW`, then little-endian u32 version, phases, classes per
//! phase and scale, then phases x classes i16 values (one per shared-weight class,
//! phase 0 first). A file written for another set of shapes is refused by its sizes.

use sha2::{Digest, Sha256};

use super::{layout, PatternWeights, PHASES, SCALE};

/// SHA-256 of the shipped `weights.bin`, checked whenever it is loaded.
pub const SHIPPED_SHA256: &str = "593d7d86f618144d1a6281086b1697fad90f3bdf218c0f99ac209b9959a28068";

const MAGIC: &[u8; 4] = b"OAPW";
const VERSION: u32 = 1;
const HEADER: usize = 20;

/// Why a weights file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadWeightsError {
    /// The bytes are not the file whose hash this build expects.
    #[error("the pattern weights have SHA-256 {found}, but this build expects {expected}: rebuild from a clean checkout, or put the hash `othello-arena train-eval` printed into SHIPPED_SHA256")]
    Hash {
        /// The hash the build expects.
        expected: String,
        /// The hash of the bytes found.
        found: String,
    },
    /// The file is not a weights file of this build's shapes.
    #[error("the pattern weights file is malformed: {0}; train it again with `othello-arena train-eval`")]
    Format(String),
}

/// SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl PatternWeights {
    /// The weights as a file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let classes = self.to_classes();
        let mut out = Vec::with_capacity(HEADER + 2 * PHASES * layout().classes());
        out.extend_from_slice(MAGIC);
        for value in [VERSION, PHASES as u32, layout().classes() as u32, SCALE as u32] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in classes.iter().flatten() {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out
    }

    /// Weights from a file's bytes (no hash check).
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, LoadWeightsError> {
        let bad = |what: String| LoadWeightsError::Format(what);
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(bad("it does not start with the OAPW header".into()));
        }
        let word = |i: usize| u32::from_le_bytes(bytes[4 + 4 * i..8 + 4 * i].try_into().expect("four bytes"));
        let expected = [VERSION, PHASES as u32, layout().classes() as u32, SCALE as u32];
        let names = ["version", "phases", "classes per phase", "scale"];
        for (i, name) in names.iter().enumerate() {
            if word(i) != expected[i] {
                return Err(bad(format!(
                    "its {name} is {}, this build reads {}",
                    word(i),
                    expected[i]
                )));
            }
        }
        let classes = layout().classes();
        if bytes.len() != HEADER + 2 * PHASES * classes {
            return Err(bad(format!(
                "it holds {} bytes, {} expected",
                bytes.len(),
                HEADER + 2 * PHASES * classes
            )));
        }
        let values: Vec<i16> = bytes[HEADER..]
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        let per_phase: Vec<Vec<i16>> = values.chunks_exact(classes).map(<[i16]>::to_vec).collect();
        Ok(PatternWeights::from_classes(&per_phase))
    }
}

/// Weights from `bytes`, refused unless their SHA-256 is `expected`.
pub(super) fn load(bytes: &[u8], expected: &str) -> Result<PatternWeights, LoadWeightsError> {
    let found = sha256_hex(bytes);
    if found != expected {
        return Err(LoadWeightsError::Hash {
            expected: expected.to_string(),
            found,
        });
    }
    PatternWeights::from_bytes(bytes)
}
