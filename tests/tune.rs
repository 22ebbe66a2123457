//! The tuning build (`--features tune`) against the normal one: the parameters of
//! `src/params.rs` are UCI options and `scout spsa` input only in the tuning build, setting one
//! changes the search, and the normal build announces, searches and benches as before.
//! (`cargo test --release --features tune --test tune` runs the tuning build's side; `.ci/run`
//! runs both.)

use std::process::Command;

use scout::params::TABLE;

const BIN: &str = env!("CARGO_BIN_EXE_scout");

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(BIN).args(args).output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn bench_nodes(text: &str) -> u64 {
    let last = text.lines().last().expect("bench output");
    last.split_whitespace().next().unwrap().parse().unwrap()
}

#[cfg(feature = "tune")]
#[test]
fn the_tuning_build_exposes_every_parameter() {
    // `scout spsa`: one line per parameter in OpenBench's format.
    let (ok, text) = run(&["spsa"]);
    assert!(ok);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), TABLE.len());
    for (line, p) in lines.iter().zip(TABLE) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[0], p.name);
        assert_eq!(fields[1], "int");
        let numbers: Vec<f64> = fields[2..].iter().map(|f| f.parse().unwrap()).collect();
        assert_eq!(
            numbers[..4],
            [p.default, p.min, p.max, p.step].map(f64::from)
        );
        assert!(numbers[4] > 0.0);
    }
    // Every parameter is a spin option with its default and range.
    let (_, banner) = run(&["uci", "quit"]);
    for p in TABLE {
        let option = format!(
            "option name {} type spin default {} min {} max {}",
            p.name, p.default, p.min, p.max
        );
        assert!(banner.contains(&option), "{option}\n{banner}");
    }
    // Setting one changes the search; its default gives the normal build's tree.
    let (_, plain) = run(&["bench 6"]);
    let (_, same) = run(&["setoption name lmr_base value 75", "bench 6"]);
    let (_, changed) = run(&["setoption name LMR_BASE value 20", "bench 6"]);
    assert_eq!(bench_nodes(&same), bench_nodes(&plain));
    assert_ne!(bench_nodes(&changed), bench_nodes(&plain));
    // Out of range: clamped, with a message.
    let (_, clamped) = run(&["setoption name lmr_base value 100000", "isready"]);
    assert!(clamped.contains("out of range"), "{clamped}");
    // The library's setter (in this test's own process): any case, clamped, unknown refused.
    assert_eq!(scout::params::set("QS_MOVE_COUNT", 5), Some(5));
    assert_eq!(scout::params::qs_move_count(), 5);
    assert_eq!(scout::params::set("qs_move_count", 99), Some(6));
    assert_eq!(scout::params::qs_move_count(), 6);
    assert_eq!(scout::params::set("no_such_param", 1), None);
}

#[cfg(not(feature = "tune"))]
#[test]
fn the_normal_build_has_no_tuning_options() {
    let (ok, text) = run(&["spsa"]);
    assert!(!ok && text.is_empty());
    let (_, banner) = run(&["uci", "quit"]);
    for p in TABLE {
        assert!(
            !banner.contains(&format!("option name {} ", p.name)),
            "{}",
            p.name
        );
    }
    let (_, reply) = run(&["setoption name lmr_base value 20", "isready"]);
    assert!(reply.contains("unknown option"), "{reply}");
    // The bench is the search's signature either way.
    let (ok, bench) = run(&["bench", "6"]);
    assert!(ok);
    assert_eq!(
        bench_nodes(&bench),
        scout::tools::bench::run(6, &mut Vec::new()).0
    );
}
