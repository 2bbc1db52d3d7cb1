#!/usr/bin/env node
// Compares the engine's circuit breaker, retry or rate limiter with Resilience4j's own,
// step by step.
//
// Random scripts (seeded) are run by `resilience-sim breaker` (`retry`, `ratelimiter`) and by
// Resilience4j's CircuitBreakerStateMachine (Retry, AtomicRateLimiter), compiled here from
// its sources (BreakerHarness.java, RetryHarness.java, RateLimiterHarness.java). Every line
// of every step must be the same: for a breaker the state, the two rates, the four counts,
// whether an acquire was permitted and the exception an operation threw; for a retry the
// five counters, the attempts, the waits, the last outcome and the exception the caller
// got; for a rate limiter the three metrics, the answer, the wait, the event and the error.
//
//   node scripts/resilience4j/compare.mjs --r4j DIR [--policy breaker|retry|ratelimiter] [--scripts 300] [--seed 1] [--record FILE --release TAG]
//
// DIR is a checkout of github.com/resilience4j/resilience4j at a release tag (v2.4.0 for
// the recorded traces). Needs a JDK 17 and Debian's libslf4j-java and libjsr305-java (the
// two jars Resilience4j's core compiles against). --record writes the scripts with
// Resilience4j's lines (not the engine's) as the traces `tests/resilience4j_traces.rs`
// replays in the test command: crates/resilience-sim/tests/resilience4j/{breaker,retry,ratelimiter}-2.4.0.jsonl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
if (!args.r4j) {
  console.error('usage: compare.mjs --r4j RESILIENCE4J_CHECKOUT [--scripts N] [--seed S] [--record FILE]');
  process.exit(2);
}
const policy = args.policy ?? 'breaker';
const HARNESS = { breaker: 'BreakerHarness', retry: 'RetryHarness', ratelimiter: 'RateLimiterHarness' };
if (!HARNESS[policy]) {
  console.error('--policy is breaker, retry or ratelimiter');
  process.exit(2);
}
const count = Number(args.scripts ?? 300);
const seed = Number(args.seed ?? 1);

// --- Resilience4j, compiled from its sources, and the harness ---------------------------
const work = mkdtempSync(join(tmpdir(), 'r4j-compare-'));
const jars = ['/usr/share/java/slf4j-api.jar', '/usr/share/java/jsr305.jar'].join(':');
const sources = [];
for (const module of ['resilience4j-core', 'resilience4j-circuitbreaker', 'resilience4j-retry', 'resilience4j-ratelimiter']) {
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.java')) sources.push(path);
    }
  };
  walk(join(args.r4j, module, 'src', 'main', 'java'));
}
const classes = join(work, 'classes');
mkdirSync(classes);
writeFileSync(join(work, 'sources.txt'), sources.join('\n'));
execFileSync('javac', ['-nowarn', '-d', classes, '-cp', jars, `@${join(work, 'sources.txt')}`], { stdio: 'pipe' });
execFileSync('javac', ['-nowarn', '-XDignore.symbol.file', '-d', classes, '-cp', classes,
  ...Object.values(HARNESS).map((name) => join(here, `${name}.java`))], { stdio: 'pipe' });

// --- Random scripts ----------------------------------------------------------------------
function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(seed);
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const chance = (p) => random() < p;
const EXCEPTIONS = ['Exception', 'RuntimeException', 'IOException', 'FileNotFoundException', 'SocketTimeoutException',
  'ConnectException', 'TimeoutException', 'IllegalStateException', 'IllegalArgumentException', 'NumberFormatException',
  'ArithmeticException', 'NullPointerException', 'CancellationException'];
const STATES = ['CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY'];
const rate = () => pick([1, 10, 20, 25, 30, 33.3, 40, 50, 60, 66.7, 75, 80, 100, int(1, 100), Math.round(random() * 10000) / 100 || 1]);

function breakerScript() {
  const timeBased = chance(0.4);
  const config = {
    slidingWindowType: timeBased ? 'TIME_BASED' : 'COUNT_BASED',
    slidingWindowSize: timeBased ? pick([1, 2, 3, 5, int(1, 30)]) : pick([1, 2, 4, int(1, 10), int(1, 100)]),
    minimumNumberOfCalls: pick([1, 2, int(1, 12), int(1, 120)]),
    failureRateThreshold: rate(),
    slowCallRateThreshold: rate(),
    slowCallDurationThreshold: int(1, 400),
    permittedNumberOfCallsInHalfOpenState: int(1, 5),
  };
  if (chance(0.25)) {
    const exponential = { initial: int(1, 1500), multiplier: pick([0.5, 1, 1.5, 2, 3, 1.25, 0, 0.1, -1]) };
    if (chance(0.5)) exponential.max = int(1, 4000);
    config.waitIntervalFunctionInOpenState = { exponential };
  } else {
    config.waitDurationInOpenState = int(1, 3000);
  }
  if (chance(0.35)) config.automaticTransitionFromOpenToHalfOpenEnabled = true;
  if (chance(0.35)) {
    config.maxWaitDurationInHalfOpenState = int(1, 3000);
    if (chance(0.5)) config.transitionToStateAfterWaitDuration = pick(['OPEN', 'CLOSED']);
  }
  if (chance(0.35)) config.recordExceptions = Array.from({ length: int(1, 3) }, () => pick(EXCEPTIONS));
  if (chance(0.3)) config.ignoreExceptions = Array.from({ length: int(1, 2) }, () => pick(EXCEPTIONS));
  if (chance(0.1)) config.initialState = pick(STATES);
  const slow = config.slowCallDurationThreshold;
  const wait = config.waitDurationInOpenState ?? config.waitIntervalFunctionInOpenState.exponential.initial;
  const steps = [];
  const length = int(10, 90);
  while (steps.length < length) {
    const r = random();
    if (r < 0.26) steps.push({ acquire: {} });
    else if (r < 0.46) steps.push({ success: { duration_ms: pick([0, int(0, slow), slow, slow + 1, int(0, 2 * slow)]) } });
    else if (r < 0.66) steps.push({ error: { duration_ms: pick([0, int(0, 2 * slow), slow + 1]), exception: pick(EXCEPTIONS) } });
    else if (r < 0.86) steps.push({ advance_ms: pick([0, 1, int(0, wait), wait, wait + 1, int(0, 2 * wait), int(900, 1100)]) });
    else if (r < 0.92) steps.push({ transition: pick(STATES) });
    else if (r < 0.98) steps.push({ release: {} });
    else steps.push({ reset: {} });
  }
  return { config, steps };
}

const RESULTS = ['ok', 'PENDING', 'retry', 503, 503.0, 200, true, false, null];
function retryScript() {
  const maxAttempts = pick([1, 2, 3, int(1, 6)]);
  const config = { maxAttempts };
  if (chance(0.5)) config.waitDuration = pick([0, 1, int(0, 2000)]);
  if (chance(0.4)) {
    config.intervalFunction = chance(0.4)
      ? { type: 'fixed', interval: pick([int(0, 1000), int(1, 1000), int(1, 1000)]) }
      : { type: 'exponential', initialInterval: pick([0, int(1, 1000), int(1, 1000)]), multiplier: pick([1, 1.5, 2, 3, 0.5]) };
    // With a cap, Resilience4j checks the initial interval only when a retry computes its
    // wait (an IllegalArgumentException to the caller); the engine refuses such a config at
    // once, like the uncapped one that Resilience4j refuses when it is built. Not compared.
    const { type, initialInterval } = config.intervalFunction;
    if (type === 'exponential' && initialInterval > 0 && chance(0.5)) config.intervalFunction.maxInterval = int(1, 5000);
  }
  if (chance(0.4)) config.retryExceptions = Array.from({ length: int(1, 3) }, () => pick(EXCEPTIONS));
  if (chance(0.3)) config.ignoreExceptions = Array.from({ length: int(1, 2) }, () => pick(EXCEPTIONS));
  if (chance(0.5)) config.retryOnResultPredicate = Array.from({ length: int(1, 2) }, () => pick(['PENDING', 'retry', 503, false]));
  if (chance(0.5)) config.failAfterMaxAttempts = chance(0.5);
  const outcome = () => (chance(0.45) ? pick([...EXCEPTIONS, 'AssertionError', 'StackOverflowError']) : pick(RESULTS));
  const steps = [];
  const length = int(3, 30);
  while (steps.length < length) {
    if (chance(0.15)) steps.push({ advance_ms: int(0, 5000) });
    // As many outcomes as attempts, so that no call runs out while it would retry.
    else steps.push({ call: { outcomes: Array.from({ length: maxAttempts }, outcome) } });
  }
  return { config, steps };
}

// An acquire runs only while the timeout is 0: a caller that waits parks a real thread in
// Resilience4j (RateLimiterHarness.java).
function rateLimiterScript() {
  const config = { limitForPeriod: pick([1, 2, 3, int(1, 10), 50]), limitRefreshPeriod: pick([1, int(1, 100), int(1, 2000)]) };
  let timeout = chance(0.5) ? 0 : int(1, 3000);
  config.timeoutDuration = timeout;
  const steps = [];
  const length = int(5, 60);
  const period = config.limitRefreshPeriod;
  while (steps.length < length) {
    const r = random();
    const permits = pick([1, 1, 1, 2, int(0, 5), int(1, 12)]);
    if (r < 0.3 && timeout === 0) steps.push({ acquire: { permits } });
    else if (r < 0.55) steps.push({ reserve: { permits } });
    else if (r < 0.6) steps.push({ drain: {} });
    else if (r < 0.67) steps.push({ change_limit: int(0, 6) });
    else if (r < 0.75) {
      timeout = pick([0, 0, int(1, 3000)]);
      steps.push({ change_timeout_ms: timeout });
    } else steps.push({ advance_ms: pick([0, 1, int(0, period), period, period - 1, int(0, 3 * period)]) });
  }
  return { config, steps };
}

const scriptsDir = join(work, 'scripts');
mkdirSync(scriptsDir);
const GENERATE = { breaker: breakerScript, retry: retryScript, ratelimiter: rateLimiterScript };
const scripts = Array.from({ length: count }, GENERATE[policy]);
const files = scripts.map((s, i) => {
  const file = join(scriptsDir, `${String(i).padStart(4, '0')}.json`);
  writeFileSync(file, JSON.stringify(s));
  return file;
});

// --- Both runs ------------------------------------------------------------------------------
const harness = HARNESS[policy];
// One JVM for all the scripts; a failure says what Java said, not the whole command line.
const run = (command, commandArgs, options) => {
  try {
    return execFileSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  } catch (e) {
    console.error(`${command} failed: ${String(e.stderr).split('\n').filter((l) => !l.startsWith('SLF4J')).slice(0, 6).join('\n')}`);
    process.exit(2);
  }
};
const javaText = run('java', ['-cp', `${classes}:${jars}`, harness, ...files])
  .split('--\n').slice(0, count).map((block) => block.trim().split('\n'));
const java = javaText.map((lines) => lines.map((l) => JSON.parse(l)));

execFileSync('cargo', ['build', '-q', '--release', '-p', 'resilience-sim'], { cwd: root, stdio: 'inherit' });
const cli = join(root, 'target', 'release', 'resilience-sim');
// A script the engine refuses (exit 2) must be one Resilience4j refuses: both are `refused`.
const engine = files.map((file) => {
  try {
    return execFileSync(cli, [policy, file], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] })
      .trim().split('\n').map((l) => JSON.parse(l));
  } catch (e) {
    if (e.status === 2) return [{ refused: true }];
    throw e;
  }
});
for (const lines of java) if (lines[0].refused) lines[0].refused = true;

// The engine words its errors; Resilience4j names the exception's class.
const errorClass = (e) => (e === undefined ? undefined
  : e.startsWith('illegal transition') ? 'IllegalStateTransitionException'
  : e.startsWith('ArithmeticException') ? 'ArithmeticException'
  : e);
const same = (a, b) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    let x = a[k]; let y = b[k];
    if (k === 'error') { x = errorClass(x); y = errorClass(y); }
    if (typeof x === 'number' && typeof y === 'number') { if (Math.fround(x) !== Math.fround(y)) return k; }
    else if (Array.isArray(x) && Array.isArray(y)) { if (x.join() !== y.join()) return k; }
    else if (x !== y) return k;
  }
  return null;
};

let differing = 0;
let steps = 0;
for (let i = 0; i < count; i++) {
  steps += java[i].length;
  for (let s = 0; s < java[i].length; s++) {
    const field = same(engine[i][s] ?? {}, java[i][s]);
    if (field) {
      differing++;
      if (differing <= 10) {
        console.log(`script ${files[i]}, step ${s} (${JSON.stringify(scripts[i].steps[s])}): ${field} differs`);
        console.log(`  Resilience4j: ${JSON.stringify(java[i][s])}`);
        console.log(`  engine:       ${JSON.stringify(engine[i][s])}`);
      }
      break;
    }
  }
}
console.log(`${count} scripts, ${steps} steps (seed ${seed}): ${differing} scripts differ from Resilience4j`);
// A recorded step: [t_ms, state, failure rate, slow call rate, buffered, failed, slow,
// not permitted, permitted or null, exception or null]; the rates as Java wrote the floats.
const breakerRow = (line, step) => {
  const rate = (name) => new RegExp(`"${name}":([^,}]+)`).exec(line)[1];
  return [step.t_ms, step.state, rate('failure_rate'), rate('slow_call_rate'), step.buffered, step.failed, step.slow,
    step.not_permitted, step.permitted ?? null, step.error ?? null];
};
// A recorded retry step: [t_ms, the five counters in Retry.Metrics order] and, for a call,
// [attempts, waits, outcome, exception or null]; a script Resilience4j refuses: "refused".
const retryRow = (line, step) => [step.t_ms, step.numberOfSuccessfulCallsWithoutRetryAttempt,
  step.numberOfSuccessfulCallsWithRetryAttempt, step.numberOfFailedCallsWithoutRetryAttempt,
  step.numberOfFailedCallsWithRetryAttempt, step.numberOfTotalCalls,
  ...(step.attempts === undefined ? [] : [step.attempts, step.waits_ms, step.outcome, step.error ?? null])];
// A recorded rate limiter step: [t_ms, availablePermissions, numberOfWaitingThreads,
// nanosToWait, permitted, waited_ms, event, error], null where the step has none.
const rateLimiterRow = (line, step) => [step.t_ms, step.availablePermissions, step.numberOfWaitingThreads,
  step.nanosToWait, step.permitted ?? null, step.waited_ms ?? null, step.event ?? null, step.error ?? null];
const ROWS = {
  breaker: ['t_ms', 'state', 'failure_rate', 'slow_call_rate', 'buffered', 'failed', 'slow', 'not_permitted', 'permitted', 'error'],
  retry: ['t_ms', 'numberOfSuccessfulCallsWithoutRetryAttempt', 'numberOfSuccessfulCallsWithRetryAttempt',
    'numberOfFailedCallsWithoutRetryAttempt', 'numberOfFailedCallsWithRetryAttempt', 'numberOfTotalCalls',
    'attempts', 'waits_ms', 'outcome', 'error'],
  ratelimiter: ['t_ms', 'availablePermissions', 'numberOfWaitingThreads', 'nanosToWait', 'permitted', 'waited_ms',
    'event', 'error'],
};
if (args.record && differing === 0) {
  const header = JSON.stringify({
    recorded: `Resilience4j ${args.release ?? '(release not given)'}, ${harness}: scripts/resilience4j/compare.mjs --policy ${policy} --seed ${seed} --scripts ${count}`,
    row: ROWS[policy],
  });
  const row = { breaker: breakerRow, retry: retryRow, ratelimiter: rateLimiterRow }[policy];
  const lines = scripts.map((s, i) => JSON.stringify({
    script: s,
    resilience4j: java[i][0].refused ? 'refused' : java[i].map((step, n) => row(javaText[i][n], step)),
  }));
  writeFileSync(args.record, [header, ...lines].join('\n') + '\n');
  console.log(`recorded ${args.record}`);
}
process.exit(differing === 0 ? 0 : 1);
