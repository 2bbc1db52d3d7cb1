// Runs a rate limiter script (the JSON `resilience-sim ratelimiter` reads) on Resilience4j's
// own AtomicRateLimiter, compiled from its sources, and prints one line per step in the
// CLI's shape. scripts/resilience4j/compare.mjs runs both and compares them.
//
// The limiter reads the script's clock (its nanoTime supplier). A caller that has to wait
// parks a real thread in Resilience4j, so the scripts compared never make one wait: an
// acquire runs only while timeoutDuration is 0 (a refusal then waits 0 ns); reserve, which
// never parks, runs with any timeout.
//
// Usage: java -cp CLASSES:. RateLimiterHarness SCRIPT.json [SCRIPT.json ...]
// Durations must be numbers of milliseconds.

import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

public final class RateLimiterHarness {

    static long nanos;

    static RateLimiterConfig config(Map<String, Object> c) {
        RateLimiterConfig.Builder b = RateLimiterConfig.custom();
        for (Map.Entry<String, Object> e : c.entrySet()) {
            Object v = e.getValue();
            switch (e.getKey()) {
                case "limitForPeriod" -> b.limitForPeriod(((Number) v).intValue());
                case "limitRefreshPeriod" -> b.limitRefreshPeriod(Duration.ofMillis(BreakerHarness.ms(v)));
                case "timeoutDuration" -> b.timeoutDuration(Duration.ofMillis(BreakerHarness.ms(v)));
                default -> throw new IllegalArgumentException("the harness reads no setting " + e.getKey());
            }
        }
        return b.build();
    }

    @SuppressWarnings("unchecked")
    static int permits(Object arg) {
        return ((Number) ((Map<String, Object>) arg).getOrDefault("permits", 1L)).intValue();
    }

    @SuppressWarnings("unchecked")
    static void run(Map<String, Object> script, StringBuilder out) {
        nanos = 0;
        Map<String, Object> c = (Map<String, Object>) script.getOrDefault("config", Map.of());
        AtomicRateLimiter limiter = new AtomicRateLimiter("script", config(c), () -> nanos);
        String[] event = {null};
        limiter.getEventPublisher().onEvent(e -> event[0] = e.getEventType().toString());
        List<Object> steps = (List<Object>) script.get("steps");
        for (int i = 0; i < steps.size(); i++) {
            Map.Entry<String, Object> op = ((Map<String, Object>) steps.get(i)).entrySet().iterator().next();
            Object arg = op.getValue();
            event[0] = null;
            String call = "";
            try {
                switch (op.getKey()) {
                    case "acquire" -> {
                        boolean permitted = limiter.acquirePermission(permits(arg));
                        call = ",\"permitted\":" + permitted + ",\"waited_ms\":0.0";
                        if (!permitted) call += ",\"error\":\"RequestNotPermitted\"";
                    }
                    case "reserve" -> {
                        long wait = limiter.reservePermission(permits(arg));
                        call = wait < 0 ? ",\"permitted\":false,\"error\":\"RequestNotPermitted\""
                            : ",\"permitted\":true,\"waited_ms\":" + (wait / 1e6);
                    }
                    case "drain" -> limiter.drainPermissions();
                    case "change_limit" -> limiter.changeLimitForPeriod(((Number) arg).intValue());
                    case "change_timeout_ms" -> limiter.changeTimeoutDuration(Duration.ofMillis(BreakerHarness.ms(arg)));
                    case "advance_ms" -> nanos += BreakerHarness.ms(arg) * 1_000_000L;
                    default -> throw new IllegalArgumentException("the harness reads no step " + op.getKey());
                }
            } catch (IllegalArgumentException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("the harness")) throw e;
                call = ",\"error\":\"" + e.getClass().getSimpleName() + "\"";
            }
            AtomicRateLimiter.AtomicRateLimiterMetrics m = limiter.getDetailedMetrics();
            out.append("{\"step\":").append(i).append(",\"t_ms\":").append(nanos / 1_000_000L)
                .append(",\"availablePermissions\":").append(m.getAvailablePermissions())
                .append(",\"numberOfWaitingThreads\":").append(m.getNumberOfWaitingThreads())
                .append(",\"nanosToWait\":").append(m.getNanosToWait());
            // The CLI puts the call's fields, then the event, then the error last.
            String error = null;
            int at = call.indexOf(",\"error\":");
            if (at >= 0) {
                error = call.substring(at);
                call = call.substring(0, at);
            }
            out.append(call);
            if (event[0] != null) out.append(",\"event\":\"").append(event[0]).append('"');
            if (error != null) out.append(error);
            out.append("}\n");
        }
        out.append("--\n");
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String file : args) {
            run((Map<String, Object>) new BreakerHarness.Json(Files.readString(Path.of(file))).value(), out);
        }
        System.out.print(out);
        System.out.flush();
    }
}
