//! The CLI's error contract on hostile input (issue 14): one line on stderr, exit 2,
//! quoting at most a short prefix of a bad value, whatever the value or file name holds.

mod common;

use common::refused;
use resilience_sim::error::{EXCERPT_CHARS, MESSAGE_CHARS};

#[test]
fn a_multi_line_json_error_is_one_line() {
    let dir = std::env::temp_dir().join(format!("rs-cli-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.json");
    // A value with a newline in it, in a JSON scenario: serde_json quotes it back.
    std::fs::write(
        &file,
        "{\"name\":\"x\",\n\"model\":\"tick\",\"ticks\":3,\"tick\":{\"behaviour\":\"slow\\nx\"}}",
    )
    .unwrap();
    let line = refused(&["run", file.to_str().unwrap()]);
    assert!(line.contains("unknown variant"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_name_with_a_newline_stays_on_one_line() {
    let line = refused(&["run", "/nonexistent/a\nb.toml"]);
    assert!(line.contains("cannot read"), "{line}");
}

#[test]
fn a_huge_bad_value_is_quoted_by_a_short_prefix() {
    // 100 KB: a single argument may hold at most 128 KB on Linux.
    let huge = "x".repeat(100_000);
    let line = refused(&["lab", "jitter", "--seed", &huge]);
    assert!(
        line.contains(&format!("“{}…”", "x".repeat(EXCERPT_CHARS))),
        "{line}"
    );
    assert!(line.chars().count() < MESSAGE_CHARS + 40, "{}", line.len());
}

#[test]
fn an_unknown_key_of_a_script_is_quoted_by_a_short_prefix() {
    let dir = std::env::temp_dir().join(format!("rs-cli-long-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("script.json");
    let key = "k".repeat(10_000);
    std::fs::write(&file, format!("{{\"{key}\": 1}}")).unwrap();
    for command in ["breaker", "bulkhead", "retry", "ratelimiter", "timelimiter"] {
        let line = refused(&[command, file.to_str().unwrap()]);
        let shown = format!("{}…", "k".repeat(EXCERPT_CHARS));
        assert!(
            line.contains(&format!("script: {shown}: unknown field")),
            "{line}"
        );
        assert!(!line.contains(&"k".repeat(EXCERPT_CHARS + 1)), "{line}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
