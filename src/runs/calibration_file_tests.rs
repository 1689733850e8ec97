use super::*;

/// The shipped calibration, which every check passes.
const SHIPPED: &str = SHIPPED_CALIBRATION;

/// The shipped file with its line starting `key = ` set to `key = value`.
fn with(key: &str, value: &str) -> String {
    let start = format!("\n{key} = ");
    let at = SHIPPED
        .find(&start)
        .unwrap_or_else(|| panic!("the shipped file has {key}"))
        + 1;
    let end = at + SHIPPED[at..].find('\n').unwrap();
    format!("{}{key} = {value}{}", &SHIPPED[..at], &SHIPPED[end..])
}

fn refused(text: &str) -> String {
    match Calibration::from_toml(text) {
        Ok(_) => panic!("taken: {}", &text[text.find("[reference]").unwrap()..][..200]),
        Err(err) => err.to_string(),
    }
}

#[test]
fn the_shipped_calibration_passes_every_check() {
    Calibration::from_toml(SHIPPED).unwrap();
}

/// The files (a NaN slope, an infinite intercept, a negative residual, a
/// rising map) and more (an infinite residual, a range that is empty or at 0, a
/// rung's NaN rating): each refused naming the field and its value.
#[test]
fn a_map_that_no_fit_could_make_is_refused_naming_the_number() {
    for (key, value, said) in [
        ("slope", "nan", "the map's slope is NaN, not a finite number"),
        ("intercept", "inf", "the map's intercept is inf, not a finite number"),
        ("residual_sd", "-183.2", "the map's residual_sd is -183.2, below 0"),
        ("residual_sd", "inf", "the map's residual_sd is inf"),
        ("slope", "295.0", "do not fall as their sensitivity grows (slope 295.0"),
        ("slope", "0.0", "(slope 0.0"),
        ("s_low", "0.0", "the map's range s_low 0 to s_high 78.1841"),
        ("s_low", "100.0", "s_low 100 to s_high 78.1841 is not a range"),
        ("elo", "nan", "rung search's elo is NaN"),
        ("softmax_s", "-inf", "rung search's softmax_s is -inf"),
    ] {
        let err = refused(&with(key, value));
        assert!(err.contains(said), "{key} = {value}: {err}");
    }
}

/// `[reference]` as the flags bound it: `exact_empties = 64` and `depth = 99` (rate
/// would solve 56-empty positions) and `depth = 0` (the values say depth 1) refused;
/// the ends of each range taken.
#[test]
fn a_reference_outside_the_flags_ranges_is_refused() {
    for (key, value, said) in [
        (
            "exact_empties",
            "64",
            "[reference] exact_empties = 64 is outside 0..=30, the range --exact-empties accepts",
        ),
        ("exact_empties", "31", "exact_empties = 31 is outside 0..=30"),
        (
            "depth",
            "99",
            "[reference] depth = 99 is outside 1..=12, the range --reference-depth accepts",
        ),
        ("depth", "0", "depth = 0 is outside 1..=12"),
    ] {
        let err = refused(&with(key, value));
        assert!(err.contains(said), "{key} = {value}: {err}");
    }
    for (key, value) in [
        ("exact_empties", "0"),
        ("exact_empties", "30"),
        ("depth", "1"),
        ("depth", "12"),
    ] {
        Calibration::from_toml(&with(key, value)).unwrap_or_else(|err| panic!("{key} = {value}: {err}"));
    }
}
