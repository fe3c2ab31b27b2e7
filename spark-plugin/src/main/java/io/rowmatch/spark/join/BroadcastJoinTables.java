package io.rowmatch.spark.join;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The build sides of broadcast joins, shared by every task of this executor (JVM) that probes the same
 * broadcast: built once, lazily, by the first task that needs it (the others wait for it), and counted by
 * users. A build side nobody uses stays cached for {@link #IDLE_MILLIS} (the next task of the same stage
 * usually starts right after the previous one ends), then a daemon timer closes it and its allocator.
 *
 * <p>Memory: each shared build side has its own allocator under the executor-wide Rowmatch allocator
 * (TaskArrowMemory), limited to spark.rowmatch.memory.limit, because it outlives the task that built it and
 * cannot live in a task's allocator; like Spark's own broadcast relations it is not charged to a task's
 * memory manager.
 */
public final class BroadcastJoinTables {
  /** How long an unused build side stays cached. */
  public static final long IDLE_MILLIS = 3000;

  private static final Object LOCK = new Object();
  private static final Map<String, Entry> ENTRIES = new HashMap<>();
  private static ScheduledExecutorService reaper;
  private static final AtomicLong BUILDS = new AtomicLong();
  private static final AtomicLong ACQUIRES = new AtomicLong();

  private BroadcastJoinTables() {}

  private static final class Entry {
    final String key;
    int users;
    long idleSince;
    BufferAllocator allocator;
    JoinBuildSide side;

    Entry(String key) {
      this.key = key;
    }

    void close() {
      if (side != null) {
        side.close();
        side = null;
      }
      if (allocator != null) {
        allocator.close();
        allocator = null;
      }
    }
  }

  /** The shared build side for {@code key}, built with {@code builder} if this executor has none yet. */
  public static JoinBuildSide acquire(String key, JoinSpec spec, Function<BufferAllocator, JoinBuildSide> builder) {
    Entry e;
    synchronized (LOCK) {
      e = ENTRIES.computeIfAbsent(key, Entry::new);
      e.users++;
    }
    ACQUIRES.incrementAndGet();
    try {
      synchronized (e) {
        if (e.side == null) {
          BufferAllocator a = TaskArrowMemory.executorWide().newChildAllocator("rowmatch-broadcast-" + key.hashCode(), 0,
              spec.memoryLimit);
          try {
            e.side = builder.apply(a);
            e.allocator = a;
            BUILDS.incrementAndGet();
          } catch (RuntimeException | Error t) {
            a.close();
            throw t;
          }
        }
        return e.side;
      }
    } catch (OutOfMemoryException oom) {
      release(key);
      throw TaskArrowMemory.outOfMemory(spec.operatorName + " (broadcast build side)", spec.memoryLimit, oom);
    } catch (RuntimeException | Error t) {
      release(key);
      throw t;
    }
  }

  /** One user of {@code key} is done; the last one starts the idle timer. */
  public static void release(String key) {
    synchronized (LOCK) {
      Entry e = ENTRIES.get(key);
      if (e == null || e.users <= 0) {
        throw new IllegalStateException("broadcast build side '" + key + "' released more often than acquired");
      }
      e.users--;
      if (e.users == 0) {
        e.idleSince = System.nanoTime();
        scheduleReap();
      }
    }
  }

  private static void scheduleReap() {
    if (reaper == null) {
      reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rowmatch-broadcast-reaper");
        t.setDaemon(true);
        return t;
      });
    }
    reaper.schedule(() -> closeIdle(IDLE_MILLIS), IDLE_MILLIS + 50, TimeUnit.MILLISECONDS);
  }

  /** Closes the build sides unused for at least {@code idleMillis}; returns how many. */
  public static int closeIdle(long idleMillis) {
    List<Entry> victims = new ArrayList<>();
    synchronized (LOCK) {
      long now = System.nanoTime();
      ENTRIES.values().removeIf(e -> {
        boolean idle = e.users == 0 && now - e.idleSince >= TimeUnit.MILLISECONDS.toNanos(idleMillis);
        if (idle) {
          victims.add(e);
        }
        return idle;
      });
    }
    for (Entry e : victims) {
      synchronized (e) {
        e.close();
      }
    }
    return victims.size();
  }

  /** Closes every unused build side now (tests, and anyone who wants the memory back at once). */
  public static int closeIdleNow() {
    return closeIdle(0);
  }

  /** Tasks currently holding a broadcast build side. */
  public static int users() {
    synchronized (LOCK) {
      int n = 0;
      for (Entry e : ENTRIES.values()) {
        n += e.users;
      }
      return n;
    }
  }

  /** Build sides built in this JVM so far (tests check a broadcast is hashed once, not once per task). */
  public static long builds() {
    return BUILDS.get();
  }

  /** Times a task took a build side, built or cached, in this JVM so far. */
  public static long acquires() {
    return ACQUIRES.get();
  }

  /** Build sides cached (in use or idle). */
  public static int cached() {
    synchronized (LOCK) {
      return ENTRIES.size();
    }
  }
}
