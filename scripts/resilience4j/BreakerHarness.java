// Runs a breaker script (the JSON `resilience-sim breaker` reads) on Resilience4j's own
// CircuitBreakerStateMachine, compiled from its sources, and prints one line per step in the
// CLI's shape. scripts/resilience4j/compare.mjs runs both and compares them.
//
// Time is virtual, as in the engine: the config's Clock reads an instant that only
// `advance_ms` moves, and the breaker's timers (automatic OPEN -> HALF_OPEN,
// maxWaitDurationInHalfOpenState) run on a scheduler that fires them, in time order, as the
// clock passes their instant. Resilience4j's SchedulerFactory cannot be subclassed (its
// constructor is private), so its one scheduler is replaced before the first breaker is
// made, as Resilience4j's own tests replace it with a mock.
//
// Usage: java -cp CLASSES:. BreakerHarness SCRIPT.json [SCRIPT.json ...]
// A script's durations must be numbers of milliseconds; exception names are the JDK's
// (simple names, mapped below). Each script's output ends with a line `--`.

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.internal.CircuitBreakerStateMachine;
import io.github.resilience4j.circuitbreaker.internal.SchedulerFactory;
import io.github.resilience4j.core.IntervalFunction;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

public final class BreakerHarness {

    /** A clock that only the script moves. */
    static final class ScriptClock extends Clock {
        long millis;

        @Override public ZoneId getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { return this; }
        @Override public Instant instant() { return Instant.ofEpochMilli(millis); }
    }

    /** One timer: due at `at`, fired in (at, order) order. */
    static final class Timer implements ScheduledFuture<Object> {
        final long at;
        final long order;
        final Runnable task;
        boolean cancelled;
        boolean done;

        Timer(long at, long order, Runnable task) { this.at = at; this.order = order; this.task = task; }

        @Override public long getDelay(TimeUnit unit) { return unit.convert(at - CLOCK.millis, TimeUnit.MILLISECONDS); }
        @Override public int compareTo(Delayed o) { return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS)); }
        @Override public boolean cancel(boolean interrupt) {
            if (done || cancelled) return false;
            cancelled = true;
            return true;
        }
        @Override public boolean isCancelled() { return cancelled; }
        @Override public boolean isDone() { return done || cancelled; }
        @Override public Object get() { return null; }
        @Override public Object get(long timeout, TimeUnit unit) { return null; }
    }

    /** The breaker's scheduler on the script's clock. */
    static final class ScriptScheduler extends AbstractExecutorService implements ScheduledExecutorService {
        final List<Timer> timers = new ArrayList<>();
        long scheduled;

        @Override public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            Timer t = new Timer(CLOCK.millis + unit.toMillis(delay), scheduled++, command);
            timers.add(t);
            return t;
        }
        @Override public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
        @Override public ScheduledFuture<?> scheduleAtFixedRate(Runnable c, long i, long p, TimeUnit u) {
            throw new UnsupportedOperationException();
        }
        @Override public ScheduledFuture<?> scheduleWithFixedDelay(Runnable c, long i, long d, TimeUnit u) {
            throw new UnsupportedOperationException();
        }
        @Override public void shutdown() { }
        @Override public List<Runnable> shutdownNow() { return List.of(); }
        @Override public boolean isShutdown() { return false; }
        @Override public boolean isTerminated() { return false; }
        @Override public boolean awaitTermination(long timeout, TimeUnit unit) { return true; }
        @Override public void execute(Runnable command) { command.run(); }

        /** Moves the clock to `to`, firing each timer due by then at its own instant. */
        void advanceTo(long to) {
            while (true) {
                Timer next = null;
                for (Timer t : timers) {
                    if (t.isDone() || t.at > to) continue;
                    if (next == null || t.at < next.at || (t.at == next.at && t.order < next.order)) next = t;
                }
                if (next == null) break;
                CLOCK.millis = Math.max(CLOCK.millis, next.at);
                next.done = true;
                try {
                    next.task.run();
                } catch (RuntimeException e) {
                    // A real executor keeps a task's exception in its future, unread.
                }
            }
            timers.removeIf(Timer::isDone);
            CLOCK.millis = to;
        }
    }

    static final ScriptClock CLOCK = new ScriptClock();
    static final ScriptScheduler SCHEDULER = new ScriptScheduler();

    static final Map<String, Class<? extends Throwable>> EXCEPTIONS = new LinkedHashMap<>();
    static {
        EXCEPTIONS.put("Exception", Exception.class);
        EXCEPTIONS.put("RuntimeException", RuntimeException.class);
        EXCEPTIONS.put("IOException", java.io.IOException.class);
        EXCEPTIONS.put("FileNotFoundException", java.io.FileNotFoundException.class);
        EXCEPTIONS.put("SocketTimeoutException", java.net.SocketTimeoutException.class);
        EXCEPTIONS.put("ConnectException", java.net.ConnectException.class);
        EXCEPTIONS.put("TimeoutException", java.util.concurrent.TimeoutException.class);
        EXCEPTIONS.put("IllegalStateException", IllegalStateException.class);
        EXCEPTIONS.put("IllegalArgumentException", IllegalArgumentException.class);
        EXCEPTIONS.put("NumberFormatException", NumberFormatException.class);
        EXCEPTIONS.put("ArithmeticException", ArithmeticException.class);
        EXCEPTIONS.put("NullPointerException", NullPointerException.class);
        EXCEPTIONS.put("CancellationException", java.util.concurrent.CancellationException.class);
        EXCEPTIONS.put("AssertionError", AssertionError.class);
        EXCEPTIONS.put("StackOverflowError", StackOverflowError.class);
    }

    static Class<? extends Throwable> exception(Object name) {
        Class<? extends Throwable> c = EXCEPTIONS.get((String) name);
        if (c == null) throw new IllegalArgumentException("the harness knows no exception " + name);
        return c;
    }

    static Throwable thrown(Object name) throws ReflectiveOperationException {
        return exception(name).getDeclaredConstructor().newInstance();
    }

    @SuppressWarnings("unchecked")
    static Class<? extends Throwable>[] exceptions(Object list) {
        List<Object> names = (List<Object>) list;
        Class<? extends Throwable>[] out = new Class[names.size()];
        for (int i = 0; i < out.length; i++) out[i] = exception(names.get(i));
        return out;
    }

    static long ms(Object n) { return ((Number) n).longValue(); }

    @SuppressWarnings("unchecked")
    static CircuitBreakerConfig config(Map<String, Object> c) {
        CircuitBreakerConfig.Builder b = CircuitBreakerConfig.custom().clock(CLOCK);
        for (Map.Entry<String, Object> e : c.entrySet()) {
            Object v = e.getValue();
            switch (e.getKey()) {
                case "failureRateThreshold" -> b.failureRateThreshold(((Number) v).floatValue());
                case "slowCallRateThreshold" -> b.slowCallRateThreshold(((Number) v).floatValue());
                case "slowCallDurationThreshold" -> b.slowCallDurationThreshold(Duration.ofMillis(ms(v)));
                case "slidingWindowType" -> b.slidingWindowType(CircuitBreakerConfig.SlidingWindowType.valueOf((String) v));
                case "slidingWindowSize" -> b.slidingWindowSize(((Number) v).intValue());
                case "minimumNumberOfCalls" -> b.minimumNumberOfCalls(((Number) v).intValue());
                case "permittedNumberOfCallsInHalfOpenState" -> b.permittedNumberOfCallsInHalfOpenState(((Number) v).intValue());
                case "waitDurationInOpenState" -> b.waitDurationInOpenState(Duration.ofMillis(ms(v)));
                case "waitIntervalFunctionInOpenState" -> {
                    Map<String, Object> f = (Map<String, Object>) ((Map<String, Object>) v).get("exponential");
                    if (f == null) throw new IllegalArgumentException("the harness reads only an exponential wait function");
                    double multiplier = ((Number) f.get("multiplier")).doubleValue();
                    b.waitIntervalFunctionInOpenState(f.containsKey("max")
                        ? IntervalFunction.ofExponentialBackoff(ms(f.get("initial")), multiplier, ms(f.get("max")))
                        : IntervalFunction.ofExponentialBackoff(ms(f.get("initial")), multiplier));
                }
                case "automaticTransitionFromOpenToHalfOpenEnabled" -> b.automaticTransitionFromOpenToHalfOpenEnabled((Boolean) v);
                case "maxWaitDurationInHalfOpenState" -> b.maxWaitDurationInHalfOpenState(Duration.ofMillis(ms(v)));
                case "transitionToStateAfterWaitDuration" -> b.transitionToStateAfterWaitDuration(CircuitBreaker.State.valueOf((String) v));
                case "recordExceptions" -> b.recordExceptions(exceptions(v));
                case "ignoreExceptions" -> b.ignoreExceptions(exceptions(v));
                case "initialState" -> b.initialState(CircuitBreaker.State.valueOf((String) v));
                default -> throw new IllegalArgumentException("the harness reads no setting " + e.getKey());
            }
        }
        return b.build();
    }

    @SuppressWarnings("unchecked")
    static void run(Map<String, Object> script, StringBuilder out) throws ReflectiveOperationException {
        CLOCK.millis = 0;
        SCHEDULER.timers.clear();
        Map<String, Object> c = (Map<String, Object>) script.getOrDefault("config", Map.of());
        CircuitBreaker cb = new CircuitBreakerStateMachine("script", config(c), SchedulerFactory.getInstance());
        List<Object> steps = (List<Object>) script.get("steps");
        for (int i = 0; i < steps.size(); i++) {
            Object step = steps.get(i);
            Boolean permitted = null;
            String error = null;
            try {
                if (step instanceof Map<?, ?> m) {
                    Map.Entry<String, Object> op = ((Map<String, Object>) m).entrySet().iterator().next();
                    Object arg = op.getValue();
                    switch (op.getKey()) {
                        case "acquire" -> permitted = cb.tryAcquirePermission();
                        case "success" -> cb.onSuccess(ms(((Map<String, Object>) arg).getOrDefault("duration_ms", 0L)), TimeUnit.MILLISECONDS);
                        case "error" -> {
                            Map<String, Object> a = (Map<String, Object>) arg;
                            cb.onError(ms(a.getOrDefault("duration_ms", 0L)), TimeUnit.MILLISECONDS, thrown(a.get("exception")));
                        }
                        case "advance_ms" -> SCHEDULER.advanceTo(CLOCK.millis + ms(arg));
                        case "transition" -> {
                            switch ((String) arg) {
                                case "CLOSED" -> cb.transitionToClosedState();
                                case "OPEN" -> cb.transitionToOpenState();
                                case "HALF_OPEN" -> cb.transitionToHalfOpenState();
                                case "DISABLED" -> cb.transitionToDisabledState();
                                case "FORCED_OPEN" -> cb.transitionToForcedOpenState();
                                case "METRICS_ONLY" -> cb.transitionToMetricsOnlyState();
                                default -> throw new IllegalArgumentException("state " + arg);
                            }
                        }
                        case "release" -> cb.releasePermission();
                        case "reset" -> cb.reset();
                        default -> throw new IllegalArgumentException("the harness reads no step " + op.getKey());
                    }
                }
            } catch (RuntimeException e) {
                if (e instanceof IllegalArgumentException && e.getMessage() != null && e.getMessage().startsWith("the harness")) throw e;
                error = e.getClass().getSimpleName();
            }
            // A task scheduled with no delay (an OPEN wait of 0 ms with the automatic
            // transition) runs on the scheduler's thread right away: before the next step.
            SCHEDULER.advanceTo(CLOCK.millis);
            CircuitBreaker.Metrics metrics = cb.getMetrics();
            out.append("{\"step\":").append(i)
                .append(",\"t_ms\":").append(CLOCK.millis)
                .append(",\"state\":\"").append(cb.getState()).append('"')
                .append(",\"failure_rate\":").append(metrics.getFailureRate())
                .append(",\"slow_call_rate\":").append(metrics.getSlowCallRate())
                .append(",\"buffered\":").append(metrics.getNumberOfBufferedCalls())
                .append(",\"failed\":").append(metrics.getNumberOfFailedCalls())
                .append(",\"slow\":").append(metrics.getNumberOfSlowCalls())
                .append(",\"not_permitted\":").append(metrics.getNumberOfNotPermittedCalls());
            if (permitted != null) out.append(",\"permitted\":").append(permitted);
            if (error != null) out.append(",\"error\":\"").append(error).append('"');
            out.append("}\n");
        }
        out.append("--\n");
    }

    /** Puts the script's scheduler in the place of Resilience4j's one scheduler. */
    static void installScheduler() throws ReflectiveOperationException {
        Class<?> holder = Class.forName(SchedulerFactory.class.getName() + "$SchedulerFactoryInstance", true,
            SchedulerFactory.class.getClassLoader());
        Field unsafeField = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        unsafeField.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) unsafeField.get(null);
        Field scheduler = holder.getDeclaredField("lazyScheduler");
        ((ScheduledExecutorService) unsafe.getObject(unsafe.staticFieldBase(scheduler), unsafe.staticFieldOffset(scheduler))).shutdownNow();
        unsafe.putObject(unsafe.staticFieldBase(scheduler), unsafe.staticFieldOffset(scheduler), SCHEDULER);
        if (SchedulerFactory.getInstance().getScheduler() != SCHEDULER) throw new IllegalStateException("scheduler not replaced");
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        installScheduler();
        StringBuilder out = new StringBuilder();
        for (String file : args) {
            run((Map<String, Object>) new Json(Files.readString(Path.of(file))).value(), out);
        }
        System.out.print(out);
        System.out.flush();
    }

    /** Just enough JSON for scripts: objects (in order), arrays, strings without escapes, numbers, booleans, null. */
    static final class Json {
        final String s;
        int i;

        Json(String s) { this.s = s; }

        void space() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        Object value() {
            space();
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (s.charAt(i) == '}') { i++; return m; }
                while (true) {
                    space();
                    String k = (String) value();
                    space();
                    i++; // ':'
                    m.put(k, value());
                    space();
                    if (s.charAt(i++) == '}') return m;
                }
            }
            if (c == '[') {
                i++;
                List<Object> l = new ArrayList<>();
                space();
                if (s.charAt(i) == ']') { i++; return l; }
                while (true) {
                    l.add(value());
                    space();
                    if (s.charAt(i++) == ']') return l;
                }
            }
            if (c == '"') {
                int end = s.indexOf('"', i + 1);
                String v = s.substring(i + 1, end);
                i = end + 1;
                return v;
            }
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String n = s.substring(start, i);
            return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
        }
    }
}
