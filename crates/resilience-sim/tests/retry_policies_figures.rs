//! The figures of Demo 15 at seed 1, printed (not asserted) with the time they take:
//! `cargo test --release -p resilience-sim --test retry_policies_figures -- --ignored --nocapture`.
//! The assertions live in `retry_policies.rs`; this prints the tables of
//! `docs/retry-policies.md`.

use std::time::Instant;

use resilience_sim::model::retry_policies::{map, sweep, MapConfig, SweepConfig};

#[test]
#[ignore = "prints the figures and timings; run in release"]
fn print_figures() {
    let start = Instant::now();
    let run = sweep::run(&SweepConfig::default()).unwrap();
    let sweep_ms = start.elapsed().as_secs_f64() * 1e3;
    let rates = &SweepConfig::default().failure_rates;
    print!("{:>20}", "f");
    for f in rates {
        print!(" {:>6.0}", f * 100.0);
    }
    println!("  onset");
    for curve in &run.curves {
        print!("{:>20}", curve.policy.name());
        for p in &curve.points {
            print!(" {:>6.3}", p.amplification);
        }
        println!("  {:?}", curve.refusal_onset);
        print!("{:>20}", "success");
        for p in &curve.points {
            print!(" {:>6.3}", p.success);
        }
        println!();
        print!("{:>20}", "refused");
        for p in &curve.points {
            print!(" {:>6.3}", p.refused);
        }
        println!();
    }
    println!("sweep: {sweep_ms:.0} ms");

    // The refusal onsets on a 1 % grid.
    let fine = SweepConfig {
        failure_rates: (0..=60).map(|i| f64::from(i) / 100.0).collect(),
        ..SweepConfig::default()
    };
    for curve in sweep::run(&fine).unwrap().curves {
        println!(
            "onset on a 1 % grid: {:>20} {:?}",
            curve.policy.name(),
            curve.refusal_onset
        );
    }

    let config = MapConfig::default();
    let start = Instant::now();
    let map = map::run(&config).unwrap();
    let map_ms = start.elapsed().as_secs_f64() * 1e3;
    for row in &map.rows {
        println!(
            "{} (rows: load; columns: trigger s {:?})",
            row.policy.name(),
            config.triggers_s
        );
        for &load in &config.loads {
            print!("  {:>4.0} %", load * 100.0);
            for &t in &config.triggers_s {
                let c = row.cell(load, t).unwrap();
                print!(
                    " {}({:.2})",
                    if c.recovered { "ok  " } else { "DOWN" },
                    c.goodput
                );
            }
            println!();
        }
    }
    println!("map: {map_ms:.0} ms");
}
