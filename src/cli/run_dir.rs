//! Run folders under `logs/`: creation, `run.json`, results.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde_json::Value;

/// `YYYY-MM-DDTHH:MM:SSZ` and `YYYYMMDD-HHMMSS` for the current UTC time.
pub fn utc_now() -> (String, String) {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z"),
        format!("{year:04}{month:02}{day:02}-{h:02}{m:02}{s:02}"),
    )
}

/// A fresh run folder: `dir` itself when given, else `logs/<stamp>-<label>`.
pub fn create_run_dir(dir: Option<&Path>, label: &str) -> Result<PathBuf> {
    let path = match dir {
        Some(dir) => dir.to_path_buf(),
        None => {
            let safe: String = label
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            Path::new("logs").join(format!("{}-{safe}", utc_now().1))
        }
    };
    std::fs::create_dir_all(&path).with_context(|| {
        format!(
            "cannot create the run folder {}: choose another --log-dir",
            path.display()
        )
    })?;
    Ok(path)
}

/// A run.json object: the harness and its version, the command and when it started,
/// then the command's own `fields`.
pub fn run_record(command: &str, created_utc: &str, fields: Value) -> Value {
    let mut record = serde_json::json!({
        "harness": { "name": "othello-arena", "version": env!("CARGO_PKG_VERSION") },
        "command": command,
        "created_utc": created_utc,
    });
    if let (Some(record), Value::Object(fields)) = (record.as_object_mut(), fields) {
        record.extend(fields);
    }
    record
}

/// Writes `value` as pretty JSON to `dir/name`.
pub fn write_json(dir: &Path, name: &str, value: &Value) -> Result<()> {
    let path = dir.join(name);
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(&path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_stamp_has_the_expected_shape() {
        let (iso, compact) = super::utc_now();
        assert_eq!(iso.len(), 20);
        assert!(iso.ends_with('Z') && iso.as_bytes()[10] == b'T');
        assert_eq!(compact.len(), 15);
        assert!(iso.starts_with("20"));
    }
}
