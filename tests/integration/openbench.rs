//! The OpenBench engine file (`openbench/Scout.json`) agrees with the crate and with what
//! OpenBench's workers do with it: the compiler version is the crate's `rust-version`, the
//! presets it needs exist, datagen runs at node budgets, and the build is `make EXE=...` from
//! the repository's root.

const FILE: &str = include_str!("../../openbench/Scout.json");
const CARGO: &str = include_str!("../../Cargo.toml");
const MAKEFILE: &str = include_str!("../../Makefile");

/// The string value of `"key" : "value"` in `text` (the first one).
fn value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// The text of the object `"name" : { ... }` (braces balanced).
fn object<'a>(text: &'a str, name: &str) -> &'a str {
    let at = text
        .find(&format!("\"{name}\""))
        .unwrap_or_else(|| panic!("no \"{name}\""));
    let open = at + text[at..].find('{').unwrap();
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open..=open + i];
                }
            }
            _ => {}
        }
    }
    panic!("\"{name}\" is not closed");
}

#[test]
fn the_engine_file_matches_the_crate_and_the_worker_contract() {
    let rust = value(CARGO, "rust-version").or_else(|| {
        let line = CARGO.lines().find(|l| l.starts_with("rust-version"))?;
        line.split('"').nth(1)
    });
    let rust = rust.expect("Cargo.toml has a rust-version");
    assert!(
        FILE.contains(&format!("\"compilers\" : [\"cargo>={rust}.0\"]")),
        "compilers must ask for cargo >= {rust}"
    );
    assert_eq!(value(FILE, "path"), Some(""), "built from the root");
    assert!(MAKEFILE.contains("EXE ?="), "the Makefile takes EXE=");
    let nps: u64 = FILE
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"nps\""))
        .and_then(|l| {
            l.trim_start_matches([' ', ':'])
                .trim_end_matches(',')
                .parse()
                .ok()
        })
        .expect("an nps");
    assert!((100_000..100_000_000).contains(&nps));

    let tests = object(FILE, "test_presets");
    assert_eq!(
        value(object(tests, "STC"), "both_time_control"),
        Some("8.0+0.08")
    );
    assert_eq!(
        value(object(tests, "LTC"), "both_time_control"),
        Some("30.0+0.3")
    );
    assert_eq!(
        value(object(tests, "default"), "test_bounds"),
        Some("[0.00, 5.00]")
    );
    let tunes = object(FILE, "tune_presets");
    assert_eq!(
        value(object(tunes, "STC"), "dev_time_control"),
        Some("8.0+0.08")
    );
    let datagen = object(FILE, "datagen_presets");
    assert_eq!(value(object(datagen, "default"), "book_name"), Some("NONE"));
    for preset in ["5k Nodes", "20k Nodes", "DFRC 5k Nodes"] {
        let tc = value(object(datagen, preset), "both_time_control").unwrap();
        assert!(tc.starts_with("N="), "{preset}: {tc} is not a node budget");
    }
    // OpenBench plays Chess960 when the book's name says FRC, 960 or FISCHER.
    let dfrc = value(object(datagen, "DFRC 5k Nodes"), "book_name").unwrap();
    assert!(dfrc.to_uppercase().contains("FRC"));
}
