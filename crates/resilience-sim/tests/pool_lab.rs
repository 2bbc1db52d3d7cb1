//! Lab D (Demo 11): one pool of request threads shared by `/fast` and `/drm`, a vendor
//! that becomes slow, and the bulkheads that do (or do not) keep `/fast` alive. The tests
//! check the mechanism (conservation, the thread bound, what each bulkhead lets `/drm`
//! hold), and the lab's story: without a bulkhead `/fast` dies with the vendor, with a
//! semaphore of 8 it does not notice.

mod common;

use common::sample_values;
use resilience_sim::model::shared_pool::{
    self, Arrivals, PoolBulkhead, PoolSecond, SharedPoolConfig, SharedPoolRun, ThreadUse,
};
use resilience_sim::scenario::lab_session::{ControlValue, LabModel, LabSession, Section};
use resilience_sim::scenario::pool_lab::PoolLab;

fn run(config: &SharedPoolConfig) -> SharedPoolRun {
    shared_pool::run(config).expect("a valid config")
}

fn with(bulkhead: PoolBulkhead) -> SharedPoolConfig {
    SharedPoolConfig {
        bulkhead,
        ..SharedPoolConfig::default()
    }
}

/// Rows of the seconds after the vendor went slow, without the last one (its requests'
/// clients are still waiting when the run ends).
fn slow_rows(run: &SharedPoolRun, config: &SharedPoolConfig) -> Vec<PoolSecond> {
    run.seconds
        .iter()
        .filter(|s| s.t_s > config.vendor_slow_at_s && s.t_s < config.seconds)
        .cloned()
        .collect()
}

fn fast_rate(s: &PoolSecond) -> f64 {
    s.fast_success_percent.expect("the second's requests ended")
}

/// Configs that exercise every path: each bulkhead, waits, small queues, both arrival
/// modes, a long client timeout, a small pool.
fn varied_configs() -> Vec<SharedPoolConfig> {
    let mut configs = Vec::new();
    for seed in [1, 2, 99] {
        for arrivals in Arrivals::ALL {
            for bulkhead in PoolBulkhead::ALL {
                let base = SharedPoolConfig {
                    bulkhead,
                    arrivals,
                    seed,
                    seconds: 30,
                    ..SharedPoolConfig::default()
                };
                configs.push(base.clone());
                configs.push(SharedPoolConfig {
                    max_wait_duration: 300,
                    queue_capacity: 5,
                    core_thread_pool_size: 2,
                    max_thread_pool_size: 6,
                    keep_alive_duration: 50,
                    client_timeout_ms: 7_000,
                    ..base.clone()
                });
                configs.push(SharedPoolConfig {
                    threads: 3,
                    accept_count: 0,
                    rps_fast: 400,
                    rps_drm: 0,
                    vendor_slow_at_s: 0,
                    ..base.clone()
                });
                configs.push(SharedPoolConfig {
                    threads: 5,
                    accept_count: 3,
                    rps_fast: 1_000,
                    rps_drm: 1_000,
                    fast_ms: 1,
                    vendor_normal_ms: 1,
                    vendor_ms: 2_000,
                    vendor_slow_at_s: 3,
                    max_concurrent_calls: 0,
                    client_timeout_ms: 100,
                    seconds: 8,
                    ..base
                });
            }
        }
    }
    configs
}

#[test]
fn every_request_is_counted_once() {
    for config in varied_configs() {
        let run = run(&config);
        assert_eq!(run.seconds.len(), config.seconds as usize);
        for (totals, rows_total, name) in [
            (
                run.fast,
                run.seconds
                    .iter()
                    .map(|s| {
                        assert_eq!(
                            s.fast_total,
                            s.fast_ok + s.fast_failed + s.fast_unfinished,
                            "{config:?} second {}",
                            s.t_s
                        );
                        assert_eq!(s.fast_failed, s.fast_no_thread + s.fast_timed_out);
                        [s.fast_total, s.fast_ok, s.fast_failed, s.fast_unfinished]
                    })
                    .fold([0_u64; 4], |acc, row| {
                        [0, 1, 2, 3].map(|i| acc[i] + u64::from(row[i]))
                    }),
                "fast",
            ),
            (
                run.drm,
                run.seconds
                    .iter()
                    .map(|s| {
                        assert_eq!(
                            s.drm_total,
                            s.drm_ok + s.drm_failed + s.drm_unfinished,
                            "{config:?} second {}",
                            s.t_s
                        );
                        assert_eq!(
                            s.drm_failed,
                            s.drm_no_thread + s.drm_timed_out + s.drm_rejected_by_bulkhead
                        );
                        [s.drm_total, s.drm_ok, s.drm_failed, s.drm_unfinished]
                    })
                    .fold([0_u64; 4], |acc, row| {
                        [0, 1, 2, 3].map(|i| acc[i] + u64::from(row[i]))
                    }),
                "drm",
            ),
        ] {
            // Arrived = ok + failed + still in flight at the end, in the totals and the
            // rows alike.
            assert_eq!(
                totals.arrived,
                totals.ok + totals.failed + totals.unfinished,
                "{name}"
            );
            assert_eq!(
                totals.failed,
                totals.refused_queue_full
                    + totals.gave_up_waiting
                    + totals.timed_out
                    + totals.rejected_by_bulkhead,
                "{name}"
            );
            assert_eq!(
                rows_total,
                [totals.arrived, totals.ok, totals.failed, totals.unfinished],
                "{name}: {config:?}"
            );
        }
        assert_eq!(run.fast.rejected_by_bulkhead, 0, "/fast has no bulkhead");
    }
}

#[test]
fn never_more_threads_than_the_pool() {
    for config in varied_configs() {
        let run = run(&config);
        assert!(run.peak_threads_busy <= config.threads);
        for s in &run.seconds {
            assert_eq!(s.cells.len(), config.threads as usize);
            assert_eq!(
                s.threads_fast + s.threads_drm + s.threads_free,
                config.threads,
                "second {}",
                s.t_s
            );
            let count = |u: ThreadUse| s.cells.iter().filter(|&&c| c == u).count() as u32;
            assert_eq!(s.threads_free, count(ThreadUse::Free));
            assert_eq!(s.threads_fast, count(ThreadUse::Fast));
            assert_eq!(
                s.threads_drm,
                s.cells.iter().filter(|c| c.is_drm()).count() as u32
            );
            assert_eq!(s.threads_stuck, count(ThreadUse::StuckOnVendor));
            assert_eq!(
                s.threads_queued_for_vendor,
                count(ThreadUse::QueuedForVendor)
            );
            // A request waits in the accept queue only while every thread is busy.
            if s.accept_queue > 0 {
                assert_eq!(s.threads_free, 0, "second {}", s.t_s);
            }
            assert!(s.accept_queue <= config.accept_count);
            // A stuck thread only exists once the vendor is slow.
            if !s.vendor_slow && s.t_s <= config.vendor_slow_at_s {
                assert_eq!(s.threads_stuck, 0);
            }
        }
    }
}

#[test]
fn the_bulkhead_bounds_what_drm_holds() {
    for config in varied_configs() {
        let run = run(&config);
        match config.bulkhead {
            PoolBulkhead::None => assert_eq!(run.drm.rejected_by_bulkhead, 0),
            PoolBulkhead::Semaphore => {
                assert!(run.peak_vendor_calls <= config.max_concurrent_calls);
                for s in &run.seconds {
                    assert!(s.vendor_calls <= config.max_concurrent_calls);
                    if config.max_wait_duration == 0 {
                        assert_eq!(s.threads_queued_for_vendor, 0, "nobody waits");
                        assert!(s.threads_drm <= config.max_concurrent_calls);
                    }
                }
            }
            PoolBulkhead::ThreadPool => {
                assert!(run.peak_vendor_calls <= config.max_thread_pool_size);
                for s in &run.seconds {
                    assert!(s.vendor_calls <= config.max_thread_pool_size);
                    assert!(s.bulkhead_threads <= config.max_thread_pool_size);
                    assert!(s.threads_queued_for_vendor <= config.queue_capacity);
                    assert!(
                        u64::from(s.threads_drm)
                            <= u64::from(config.max_thread_pool_size + config.queue_capacity)
                    );
                }
            }
        }
    }
}

#[test]
fn before_the_vendor_is_slow_both_endpoints_answer_everything() {
    for seed in [1, 2, 3, 4, 5] {
        for bulkhead in PoolBulkhead::ALL {
            let config = SharedPoolConfig {
                seed,
                ..with(bulkhead)
            };
            let run = run(&config);
            for s in run
                .seconds
                .iter()
                .filter(|s| s.t_s <= config.vendor_slow_at_s)
            {
                assert!(!s.vendor_slow);
                assert_eq!((s.fast_total, s.drm_total), (50, 50), "even arrivals");
                assert_eq!(s.fast_ok, 50, "{bulkhead:?} seed {seed} second {}", s.t_s);
                assert_eq!(s.drm_ok, 50, "{bulkhead:?} seed {seed} second {}", s.t_s);
                assert!(s.fast_p99_ms.unwrap() <= 24);
                assert!(s.drm_p99_ms.unwrap() <= 120);
                assert_eq!(s.threads_stuck, 0);
            }
        }
    }
}

#[test]
fn without_a_bulkhead_the_slow_vendor_takes_fast_down_too() {
    for seed in [1, 2, 3, 4, 5, 6, 7, 8] {
        for arrivals in Arrivals::ALL {
            let config = SharedPoolConfig {
                seed,
                arrivals,
                ..SharedPoolConfig::default()
            };
            let run = run(&config);
            let rows = slow_rows(&run, &config);
            // Within 5 s of the vendor going slow, /fast answers fewer than 10 % of its
            // requests, and it does not come back while the vendor stays slow.
            let first_down = rows
                .iter()
                .find(|s| fast_rate(s) < 10.0)
                .expect("/fast goes down");
            assert!(
                first_down.t_s <= config.vendor_slow_at_s + 5,
                "seed {seed}: /fast down only at {} s",
                first_down.t_s
            );
            // It stays down (a Poisson second with few arrivals may show a higher share).
            let after: Vec<f64> = rows
                .iter()
                .filter(|s| s.t_s >= first_down.t_s)
                .map(fast_rate)
                .collect();
            let bound = match arrivals {
                Arrivals::Even => 10.0,
                Arrivals::Poisson => 35.0,
            };
            assert!(after.iter().all(|&r| r < bound), "seed {seed}: {after:?}");
            let mean = after.iter().sum::<f64>() / after.len() as f64;
            assert!(mean < 5.0, "seed {seed}: {mean:.1} % on average");
            // Because the whole pool is stuck on the vendor and the accept queue is full.
            for s in rows.iter().filter(|s| s.t_s >= config.vendor_slow_at_s + 2) {
                assert_eq!(s.threads_free, 0);
                assert!(s.threads_stuck >= config.threads - 2, "second {}", s.t_s);
                assert!(s.accept_queue > 0);
                // /fast fails for want of a thread (or is served too late from the queue).
                assert!(s.fast_no_thread > 0);
            }
            assert_eq!(run.peak_threads_busy, config.threads);
        }
    }
}

#[test]
fn a_semaphore_bulkhead_of_8_keeps_fast_serving() {
    for seed in [1, 2, 3, 4, 5, 6, 7, 8] {
        for arrivals in Arrivals::ALL {
            let config = SharedPoolConfig {
                seed,
                arrivals,
                ..with(PoolBulkhead::Semaphore)
            };
            let run = run(&config);
            for s in &run.seconds[..run.seconds.len() - 1] {
                assert!(
                    fast_rate(s) >= 99.0,
                    "seed {seed} {arrivals:?} second {}: {:?}",
                    s.t_s,
                    s.fast_success_percent
                );
            }
            // /drm degrades alone: its calls beyond the 8 are refused at once, and the 8
            // that get a permit answer after their client has left (5 s > 1 s).
            let rows = slow_rows(&run, &config);
            let (mut refused, mut arrived) = (0, 0);
            for s in rows.iter().filter(|s| s.t_s >= config.vendor_slow_at_s + 2) {
                refused += s.drm_rejected_by_bulkhead;
                arrived += s.drm_total;
                assert!(
                    s.threads_stuck <= 8 && s.threads_stuck >= 5,
                    "second {}",
                    s.t_s
                );
                assert!(s.threads_free >= 8, "second {}", s.t_s);
                assert_eq!(s.accept_queue, 0);
            }
            assert!(
                refused * 10 >= arrived * 9,
                "{refused} of {arrived} refused"
            );
            assert!(rows.iter().all(|s| s.drm_ok == 0));
        }
    }
}

#[test]
fn poisson_bursts_make_a_tight_bulkhead_refuse_on_a_good_day() {
    // With 5 calls in flight on average, Erlang's loss formula gives B(8, 5) = 7 % refused.
    let mut refused = 0;
    let mut total = 0;
    for seed in 1..=5 {
        let config = SharedPoolConfig {
            seed,
            arrivals: Arrivals::Poisson,
            vendor_slow_at_s: 60,
            ..with(PoolBulkhead::Semaphore)
        };
        let run = run(&config);
        refused += run.drm.rejected_by_bulkhead;
        total += run.drm.arrived;
        assert_eq!(run.fast.ok + run.fast.unfinished, run.fast.arrived);
    }
    let percent = 100.0 * refused as f64 / total as f64;
    assert!((4.0..=10.0).contains(&percent), "{percent:.1} % refused");
}

#[test]
fn a_thread_pool_bulkhead_with_a_big_queue_still_drains_the_pool() {
    for seed in [1, 2, 3] {
        let config = SharedPoolConfig {
            seed,
            ..with(PoolBulkhead::ThreadPool)
        };
        // 8 vendor threads + a queue of 100: /drm may hold 108 request threads, of 24.
        assert_eq!(config.drm_thread_cap(), Some(108));
        let run = run(&config);
        let rows = slow_rows(&run, &config);
        for s in rows.iter().filter(|s| s.t_s >= config.vendor_slow_at_s + 2) {
            // The mechanism: 8 threads wait on running vendor calls, the other 16 wait for
            // their call's future while it sits in the bulkhead's queue.
            // (A freed request thread may be serving a /fast request at the snapshot.)
            assert_eq!(s.vendor_calls, 8);
            assert_eq!(s.threads_stuck, 8);
            assert!(s.threads_queued_for_vendor >= 12, "second {}", s.t_s);
            assert_eq!(s.threads_free, 0);
            assert_eq!(s.drm_rejected_by_bulkhead, 0, "the queue never fills");
            assert!(fast_rate(s) < 10.0, "second {}", s.t_s);
        }
        assert_eq!(run.drm.rejected_by_bulkhead, 0);

        // A queue that leaves threads for /fast protects it: 8 + 4 = 12 of 24.
        let small = SharedPoolConfig {
            queue_capacity: 4,
            ..config.clone()
        };
        let run = shared_pool::run(&small).unwrap();
        for s in &run.seconds[..run.seconds.len() - 1] {
            assert!(fast_rate(s) >= 99.0, "second {}", s.t_s);
            assert!(s.threads_drm <= 12);
        }
        assert!(run.drm.rejected_by_bulkhead > 0);
    }
}

#[test]
fn the_queue_adds_latency_when_clients_wait_long_enough() {
    // With a client timeout of 30 s a slow answer is still an answer: /drm succeeds in
    // about 5 s without a queue, and queued calls wait for a vendor thread on top.
    let patient = SharedPoolConfig {
        client_timeout_ms: 30_000,
        rps_drm: 1,
        max_concurrent_calls: 2,
        core_thread_pool_size: 2,
        max_thread_pool_size: 2,
        queue_capacity: 4,
        ..SharedPoolConfig::default()
    };
    let semaphore = run(&SharedPoolConfig {
        bulkhead: PoolBulkhead::Semaphore,
        ..patient.clone()
    });
    let thread_pool = run(&SharedPoolConfig {
        bulkhead: PoolBulkhead::ThreadPool,
        ..patient
    });
    let slow_ok = |run: &SharedPoolRun| -> Vec<u64> {
        run.seconds
            .iter()
            .filter(|s| s.t_s > 10 && s.t_s <= 40)
            .filter_map(|s| s.drm_p50_ms)
            .collect()
    };
    let direct = slow_ok(&semaphore);
    let queued = slow_ok(&thread_pool);
    assert!(!direct.is_empty() && direct.iter().all(|&ms| (4_000..=6_000).contains(&ms)));
    assert!(
        queued.iter().any(|&ms| ms > 6_000),
        "queued calls wait for a vendor thread: {queued:?}"
    );
    assert!(
        thread_pool.drm.rejected_by_bulkhead < semaphore.drm.rejected_by_bulkhead,
        "the queue refuses fewer calls, and makes them wait instead"
    );
}

#[test]
fn a_semaphore_that_waits_holds_request_threads_while_it_waits() {
    let config = SharedPoolConfig {
        max_wait_duration: 500,
        ..with(PoolBulkhead::Semaphore)
    };
    let run = run(&config);
    let rows = slow_rows(&run, &config);
    let waiting = rows
        .iter()
        .map(|s| s.threads_queued_for_vendor)
        .max()
        .unwrap();
    assert!(waiting >= 10, "waiters hold request threads ({waiting})");
    assert!(rows.iter().any(|s| fast_rate(s) < 50.0));
}

#[test]
fn the_same_seed_gives_the_same_run() {
    for config in varied_configs().into_iter().step_by(5) {
        assert_eq!(run(&config), run(&config));
    }
    let a = run(&SharedPoolConfig::default());
    let b = run(&SharedPoolConfig {
        seed: 2,
        ..SharedPoolConfig::default()
    });
    assert_ne!(a, b, "another seed, other arrivals");
    // The same traffic whatever the protection: the rows' arrivals agree.
    let c = run(&with(PoolBulkhead::Semaphore));
    for (x, y) in a.seconds.iter().zip(&c.seconds) {
        assert_eq!((x.fast_total, x.drm_total), (y.fast_total, y.drm_total));
    }
}

#[test]
fn littles_law_numbers_of_the_story() {
    let run = run(&SharedPoolConfig::default());
    assert_eq!(run.fast_threads_needed, 1.0);
    assert_eq!(run.drm_threads_needed_normal, 5.0);
    assert_eq!(run.drm_threads_needed_slow, 250.0);
    assert_eq!(run.threads, 24);
    assert_eq!(run.drm_thread_cap, None);
    assert_eq!(with(PoolBulkhead::Semaphore).drm_thread_cap(), Some(8));
}

#[test]
fn invalid_configs_are_refused_with_the_field_named() {
    let d = SharedPoolConfig::default;
    let cases: Vec<(&str, SharedPoolConfig)> = vec![
        ("threads", SharedPoolConfig { threads: 0, ..d() }),
        (
            "threads",
            SharedPoolConfig {
                threads: 201,
                ..d()
            },
        ),
        (
            "rpsFast",
            SharedPoolConfig {
                rps_fast: 1_001,
                ..d()
            },
        ),
        (
            "rpsDrm",
            SharedPoolConfig {
                rps_drm: u32::MAX,
                ..d()
            },
        ),
        ("fastMs", SharedPoolConfig { fast_ms: 0, ..d() }),
        (
            "vendorNormalMs",
            SharedPoolConfig {
                vendor_normal_ms: 60_001,
                ..d()
            },
        ),
        (
            "vendorMs",
            SharedPoolConfig {
                vendor_ms: u64::MAX,
                ..d()
            },
        ),
        (
            "vendorSlowAtS",
            SharedPoolConfig {
                vendor_slow_at_s: 601,
                ..d()
            },
        ),
        ("seconds", SharedPoolConfig { seconds: 0, ..d() }),
        (
            "seconds",
            SharedPoolConfig {
                seconds: 601,
                ..d()
            },
        ),
        (
            "acceptCount",
            SharedPoolConfig {
                accept_count: 10_001,
                ..d()
            },
        ),
        (
            "clientTimeoutMs",
            SharedPoolConfig {
                client_timeout_ms: 99,
                ..d()
            },
        ),
        (
            "maxConcurrentCalls",
            SharedPoolConfig {
                max_concurrent_calls: 201,
                ..d()
            },
        ),
        (
            "maxWaitDuration",
            SharedPoolConfig {
                max_wait_duration: 60_001,
                ..d()
            },
        ),
        (
            "coreThreadPoolSize",
            SharedPoolConfig {
                core_thread_pool_size: 0,
                ..d()
            },
        ),
        (
            "maxThreadPoolSize",
            SharedPoolConfig {
                max_thread_pool_size: 0,
                ..d()
            },
        ),
        (
            "maxThreadPoolSize",
            SharedPoolConfig {
                core_thread_pool_size: 9,
                max_thread_pool_size: 8,
                ..d()
            },
        ),
        (
            "queueCapacity",
            SharedPoolConfig {
                queue_capacity: 10_001,
                ..d()
            },
        ),
        (
            "keepAliveDuration",
            SharedPoolConfig {
                keep_alive_duration: 60_001,
                ..d()
            },
        ),
    ];
    for (field, config) in cases {
        let e = shared_pool::run(&config).unwrap_err();
        assert_eq!(e.field, field, "{e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn the_largest_config_runs_and_stays_bounded() {
    let config = SharedPoolConfig {
        threads: 200,
        rps_fast: 1_000,
        rps_drm: 1_000,
        seconds: 20,
        accept_count: 10_000,
        client_timeout_ms: 120_000,
        vendor_ms: 60_000,
        vendor_slow_at_s: 5,
        ..SharedPoolConfig::default()
    };
    let run = run(&config);
    assert_eq!(run.fast.arrived, 20_000);
    assert_eq!(run.drm.arrived, 20_000);
    assert_eq!(run.peak_threads_busy, 200);
    assert!(run.seconds.iter().all(|s| s.accept_queue <= 10_000));
}

#[test]
fn the_json_rows_carry_the_issues_fields() {
    let json = serde_json::to_value(run(&SharedPoolConfig::default())).unwrap();
    let first = &json["seconds"][0];
    for key in [
        "t_s",
        "fast_ok",
        "fast_total",
        "drm_ok",
        "drm_total",
        "threads_fast",
        "threads_drm",
        "threads_free",
        "drm_rejected_by_bulkhead",
        "fast_p99_ms",
        "cells",
    ] {
        assert!(!first[key].is_null(), "{key}");
    }
    assert_eq!(first["t_s"], 1);
    let cells = json["seconds"][20]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 24);
    assert!(cells.iter().any(|c| c == "stuck_on_vendor"));
    assert_eq!(json["bulkhead"], "none");
    let tp = serde_json::to_value(with(PoolBulkhead::ThreadPool)).unwrap();
    assert_eq!(tp["bulkhead"], "thread-pool");
    assert_eq!(tp["maxConcurrentCalls"], 8);
}

// ----- the lab's controls -----

#[test]
fn controls_round_trip_through_their_names() {
    for control in PoolLab::controls() {
        for text in sample_values(control) {
            let mut session = LabSession::<PoolLab>::default();
            // Long runs at the top of every range are slow in a debug build: keep the
            // run short while trying a control's values.
            if control.name != "seconds" {
                session.set_text("seconds", "2").unwrap();
            }
            session
                .set_text(control.name, &text)
                .unwrap_or_else(|e| panic!("{} = {text} refused: {e}", control.name));
            assert_eq!(control.text(session.config()), text, "{}", control.name);
            let pairs = session.to_pairs();
            let (back, problems) =
                LabSession::<PoolLab>::from_pairs(pairs.iter().map(|(n, v)| (*n, v.as_str())));
            assert!(problems.is_empty(), "{}: {problems:?}", control.name);
            assert!(
                back == session,
                "{} = {text}: the link restores it",
                control.name
            );
        }
    }
}

#[test]
fn controls_are_named_as_the_configs_fields() {
    let json = serde_json::to_value(SharedPoolConfig::default()).unwrap();
    let fields: Vec<&String> = json.as_object().unwrap().keys().collect();
    let names: Vec<&str> = PoolLab::controls().iter().map(|c| c.name).collect();
    assert_eq!(fields.len(), names.len(), "{fields:?} vs {names:?}");
    for name in &names {
        assert!(json.get(name).is_some(), "{name} is a config field");
    }
    let main: Vec<&str> = PoolLab::controls()
        .iter()
        .filter(|c| c.section == Section::Main)
        .map(|c| c.name)
        .collect();
    assert_eq!(
        main,
        [
            "bulkhead",
            "maxConcurrentCalls",
            "vendorSlowAtS",
            "vendorMs",
            "threads"
        ]
    );
    assert!(PoolLab::controls().iter().all(|c| c.is_cli_flag()));
    assert_eq!(PoolLab::NAME, "pool");
    let session = LabSession::<PoolLab>::default();
    let vendor = LabSession::<PoolLab>::control("vendorMs").unwrap();
    assert_eq!(vendor.display(session.config()), "5 s");
}

#[test]
fn the_thread_pool_sizes_move_together() {
    let mut session = LabSession::<PoolLab>::default();
    session.set_text("coreThreadPoolSize", "20").unwrap();
    assert_eq!(session.config().config.max_thread_pool_size, 20);
    session.set_text("maxThreadPoolSize", "3").unwrap();
    assert_eq!(session.config().config.core_thread_pool_size, 3);
    session
        .set("bulkhead", ControlValue::Choice("thread-pool"))
        .unwrap();
    assert_eq!(session.config().config.bulkhead, PoolBulkhead::ThreadPool);
    assert!(session.run().is_ok());
}

#[test]
fn invalid_control_values_leave_the_session_as_it_was() {
    let mut session = LabSession::<PoolLab>::default();
    let before = session.clone();
    for (name, text) in [
        ("bulkhead", "bulky"),
        ("threads", "0"),
        ("threads", "201"),
        ("threads", "2.5"),
        ("rpsFast", "-1"),
        ("vendorMs", "5 parsecs"),
        ("vendorMs", "5"),
        ("seconds", "601"),
        ("maxWaitDuration", "2m"),
        ("arrivals", "sometimes"),
        ("seed", "-1"),
    ] {
        let e = session.set_text(name, text).unwrap_err();
        assert_eq!(e.field, name, "{name} = {text}: {e}");
        assert!(session == before, "{name} = {text}");
    }
    let (session, problems) =
        LabSession::<PoolLab>::from_pairs([("bulkhead", "semaphore"), ("bogus", "1")]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, "bogus");
    assert_eq!(session.config().config.bulkhead, PoolBulkhead::Semaphore);
}
