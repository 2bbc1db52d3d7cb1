// Runs a retry script (the JSON `resilience-sim retry` reads) on Resilience4j's own Retry,
// compiled from its sources, and prints one line per step in the CLI's shape.
// scripts/resilience4j/compare.mjs runs both and compares them.
//
// Each call goes through Retry.decorateCheckedSupplier, as the CLI's does; the supplier plays
// the call's outcomes in turn (an exception name is thrown, anything else returned). The
// waits are recorded, not slept: RetryImpl.setSleepFunction. The clock plays no part.
//
// Usage: java -cp CLASSES:. RetryHarness SCRIPT.json [SCRIPT.json ...]
// Durations must be numbers of milliseconds; exception names are the JDK's simple names
// below; no randomized interval functions (Resilience4j draws from Math.random).

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.internal.RetryImpl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

public final class RetryHarness {

    static final List<Long> WAITS = new ArrayList<>();

    @SuppressWarnings("unchecked")
    static RetryConfig config(Map<String, Object> c) {
        RetryConfig.Builder<Object> b = RetryConfig.<Object>custom();
        for (Map.Entry<String, Object> e : c.entrySet()) {
            Object v = e.getValue();
            switch (e.getKey()) {
                case "maxAttempts" -> b.maxAttempts(((Number) v).intValue());
                case "waitDuration" -> b.waitDuration(Duration.ofMillis(BreakerHarness.ms(v)));
                case "intervalFunction" -> {
                    Map<String, Object> f = (Map<String, Object>) v;
                    switch ((String) f.get("type")) {
                        case "fixed" -> b.intervalFunction(IntervalFunction.of(BreakerHarness.ms(f.get("interval"))));
                        case "exponential" -> {
                            long initial = BreakerHarness.ms(f.get("initialInterval"));
                            double multiplier = ((Number) f.getOrDefault("multiplier", 1.5)).doubleValue();
                            b.intervalFunction(f.containsKey("maxInterval")
                                ? IntervalFunction.ofExponentialBackoff(initial, multiplier, BreakerHarness.ms(f.get("maxInterval")))
                                : IntervalFunction.ofExponentialBackoff(initial, multiplier));
                        }
                        default -> throw new IllegalArgumentException("the harness reads no interval function " + f.get("type"));
                    }
                }
                case "retryExceptions" -> b.retryExceptions(BreakerHarness.exceptions(v));
                case "ignoreExceptions" -> b.ignoreExceptions(BreakerHarness.exceptions(v));
                case "retryOnResultPredicate" -> {
                    List<Object> retried = (List<Object>) v;
                    Predicate<Object> predicate = result -> retried.stream().anyMatch(r -> same(r, result));
                    b.retryOnResult(predicate);
                }
                case "failAfterMaxAttempts" -> b.failAfterMaxAttempts((Boolean) v);
                default -> throw new IllegalArgumentException("the harness reads no setting " + e.getKey());
            }
        }
        return b.build();
    }

    /** Equal values, numbers by value (503 equals 503.0), as the CLI compares them. */
    static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) return x.doubleValue() == y.doubleValue();
        return a == null ? b == null : a.equals(b);
    }

    static String json(Object value) {
        if (value == null) return "null";
        if (value instanceof String s) return "\"" + s + "\"";
        if (value instanceof Double d) return d == Math.rint(d) && Math.abs(d) < 1e15 ? String.format("%.1f", d) : d.toString();
        return value.toString();
    }

    @SuppressWarnings("unchecked")
    static void run(Map<String, Object> script, StringBuilder out) {
        Map<String, Object> c = (Map<String, Object>) script.getOrDefault("config", Map.of());
        Retry retry;
        try {
            retry = Retry.of("script", config(c));
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("the harness")) throw e;
            // Resilience4j refuses the config (an interval under 1 ms, a multiplier under 1).
            out.append("{\"refused\":\"").append(e.getClass().getSimpleName()).append("\"}\n--\n");
            return;
        }
        long clock = 0;
        List<Object> steps = (List<Object>) script.get("steps");
        for (int i = 0; i < steps.size(); i++) {
            Map<String, Object> step = (Map<String, Object>) steps.get(i);
            String call = "";
            if (step.containsKey("advance_ms")) {
                clock += BreakerHarness.ms(step.get("advance_ms"));
            } else {
                List<Object> outcomes = (List<Object>) ((Map<String, Object>) step.get("call")).get("outcomes");
                Iterator<Object> next = outcomes.iterator();
                int[] attempts = {0};
                Object[] last = {null};
                CheckedSupplier<Object> supplier = () -> {
                    attempts[0]++;
                    Object outcome = next.next();
                    last[0] = outcome;
                    if (outcome instanceof String name && BreakerHarness.EXCEPTIONS.containsKey(name)) {
                        throw BreakerHarness.thrown(name);
                    }
                    return outcome;
                };
                WAITS.clear();
                String error = null;
                try {
                    Retry.decorateCheckedSupplier(retry, supplier).get();
                } catch (Throwable t) {
                    error = t.getClass().getSimpleName();
                }
                StringBuilder waits = new StringBuilder();
                for (long w : WAITS) waits.append(waits.length() == 0 ? "" : ",").append(w);
                Object outcome = last[0];
                call = ",\"attempts\":" + attempts[0] + ",\"waits_ms\":[" + waits + "],\"outcome\":" + json(outcome)
                    + (error == null ? "" : ",\"error\":\"" + error + "\"");
            }
            Retry.Metrics m = retry.getMetrics();
            out.append("{\"step\":").append(i).append(",\"t_ms\":").append(clock)
                .append(",\"numberOfSuccessfulCallsWithoutRetryAttempt\":").append(m.getNumberOfSuccessfulCallsWithoutRetryAttempt())
                .append(",\"numberOfSuccessfulCallsWithRetryAttempt\":").append(m.getNumberOfSuccessfulCallsWithRetryAttempt())
                .append(",\"numberOfFailedCallsWithoutRetryAttempt\":").append(m.getNumberOfFailedCallsWithoutRetryAttempt())
                .append(",\"numberOfFailedCallsWithRetryAttempt\":").append(m.getNumberOfFailedCallsWithRetryAttempt())
                .append(",\"numberOfTotalCalls\":").append(m.getNumberOfTotalCalls())
                .append(call).append("}\n");
        }
        out.append("--\n");
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        RetryImpl.setSleepFunction(WAITS::add);
        StringBuilder out = new StringBuilder();
        for (String file : args) {
            run((Map<String, Object>) new BreakerHarness.Json(Files.readString(Path.of(file))).value(), out);
        }
        System.out.print(out);
        System.out.flush();
    }
}
