package io.rowmatch.spark.memory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.util.TaskCompletionListener;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.testing.TestFaults;

/**
 * One Arrow allocator per task, limited to {@code spark.rowmatch.memory.limit}, under one executor-wide
 * Rowmatch allocator (a child of Spark's Arrow root) limited to {@value #DIRECT_SHARE_PERCENT}% of the JVM's
 * direct memory, so that Rowmatch's own buffers end in Arrow's catchable OutOfMemoryException, never in
 * Netty's fatal OutOfDirectMemoryError. Every Rowmatch operator of a task draws from it; what it allocates is
 * reserved from the task's TaskMemoryManager through the task's {@link TaskMemory} (its allocation listener).
 * It is closed when the task completes, successfully or not. Operators register their own cleanup after
 * fetching the allocator, and Spark runs completion listeners in reverse order, so their buffers are released
 * before the allocator closes; a buffer still held then is a leak and fails the task.
 */
public final class TaskArrowMemory {
  /** The executor-wide ceiling of Rowmatch's Arrow memory, as a share of Netty's direct memory limit. */
  static final int DIRECT_SHARE_PERCENT = 80;

  private static final ConcurrentHashMap<Long, BufferAllocator> BY_TASK = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Long, TaskMemory> MEMORY_BY_TASK = new ConcurrentHashMap<>();
  private static volatile BufferAllocator executorWide;

  private TaskArrowMemory() {}

  public static BufferAllocator forTask(TaskContext task, long limitBytes) {
    if (task == null) {
      throw new IllegalStateException("Rowmatch operators run inside Spark tasks; no TaskContext is active");
    }
    long id = task.taskAttemptId();
    BufferAllocator existing = BY_TASK.get(id);
    if (existing != null) {
      return existing;
    }
    TaskMemoryManager tmm = task.taskMemoryManager();
    TaskMemory memory = tmm == null ? null : new TaskMemory(tmm, testGrantCap(task));
    BufferAllocator created = memory == null
        ? executorWide().newChildAllocator("rowmatch-task-" + id, 0, limitBytes)
        : executorWide().newChildAllocator("rowmatch-task-" + id, memory, 0, limitBytes);
    BY_TASK.put(id, created);
    if (memory != null) {
      MEMORY_BY_TASK.put(id, memory);
    }
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      BY_TASK.remove(id);
      MEMORY_BY_TASK.remove(id);
      try {
        created.close();
      } finally {
        if (memory != null) {
          memory.close();
        }
      }
    });
    return created;
  }

  /** The task's memory consumer (null outside a real task, e.g. a TaskContext without a memory manager). */
  public static TaskMemory memoryOf(TaskContext task) {
    return task == null ? null : MEMORY_BY_TASK.get(task.taskAttemptId());
  }

  /** The consumer an allocator of a task reports to, or null. */
  public static TaskMemory memoryOf(BufferAllocator allocator) {
    return allocator.getListener() instanceof TaskMemory m ? m : null;
  }

  /** The executor-wide Rowmatch allocator: every task's and every broadcast build side's allocator is under it. */
  public static BufferAllocator executorWide() {
    BufferAllocator a = executorWide;
    if (a == null) {
      synchronized (TaskArrowMemory.class) {
        a = executorWide;
        if (a == null) {
          long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
          long limit = direct <= 0 ? Long.MAX_VALUE : direct / 100 * DIRECT_SHARE_PERCENT;
          a = ArrowUtils.rootAllocator().newChildAllocator("rowmatch", 0, limit);
          executorWide = a;
        }
      }
    }
    return a;
  }

  /** Test-only grant ceiling per task (spark.rowmatch.test.taskMemoryGrant), Long.MAX_VALUE otherwise. */
  private static long testGrantCap(TaskContext task) {
    String v = task.getLocalProperty(RowmatchConf.TEST_TASK_MEMORY_GRANT_ENTRY.key());
    if (v == null || !TestFaults.enabledAtStartup()) {
      return Long.MAX_VALUE;
    }
    return org.apache.spark.network.util.JavaUtils.byteStringAsBytes(v.trim());
  }

  /**
   * A per-task resource drawing from the task's allocator, closed when the task completes (before the
   * allocator, since Spark runs completion listeners in reverse order of registration).
   */
  public static <T extends AutoCloseable> T open(TaskContext task, long limitBytes, Function<BufferAllocator, T> make) {
    T resource = make.apply(forTask(task, limitBytes));
    closeWithTask(task, resource);
    return resource;
  }

  /** Closes the resource when the task completes, successfully or not. */
  public static void closeWithTask(TaskContext task, AutoCloseable resource) {
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      try {
        resource.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("closing " + resource + " failed", e);
      }
    });
  }

  /** Number of task allocators currently open in this JVM (tests assert it returns to zero). */
  public static int openAllocators() {
    return BY_TASK.size();
  }

  /** Bytes currently held from Spark's Arrow root allocator (ours and Spark's own Arrow users). */
  public static long rootAllocatedBytes() {
    return ArrowUtils.rootAllocator().getAllocatedMemory();
  }

  public static String rootDescription() {
    return ArrowUtils.rootAllocator().toVerboseString();
  }

  /**
   * The error a user sees when a task needs more than the limit (or the executor's direct memory): it names
   * the settings to raise.
   */
  public static RuntimeException outOfMemory(String operator, long limitBytes, OutOfMemoryException cause) {
    return new RowmatchMemoryException(operator + " needs more memory than " + RowmatchConf.MEMORY_LIMIT
        + " allows per task (" + limitBytes + " bytes) or than the executor's direct memory allows ("
        + DIRECT_SHARE_PERCENT + "% of -XX:MaxDirectMemorySize for all Rowmatch tasks); raise "
        + RowmatchConf.MEMORY_LIMIT + " or the executor's direct memory, or set spark.rowmatch.enabled=false",
        withoutJvmErrors(cause));
  }

  /**
   * {@code t}, or when a JVM error is among its causes (Arrow wraps Netty's OutOfDirectMemoryError when the
   * JVM's direct memory runs out before our allocator's limit: Netty's pool holds more than Arrow counts), a
   * copy of its chain as one exception with the same messages and stack trace. Spark's executor treats a task
   * exception with an OutOfMemoryError among its first causes as fatal (spark.executor.killOnFatalError.depth)
   * and exits: a task that ran out of Arrow memory must fail alone.
   */
  public static Throwable withoutJvmErrors(Throwable t) {
    boolean error = false;
    StringBuilder chain = new StringBuilder();
    for (Throwable c = t; c != null && chain.length() < 4000; c = c.getCause()) {
      error |= c instanceof Error;
      chain.append(chain.length() == 0 ? "" : " <- caused by ").append(c);
      if (c.getCause() == c) {
        break;
      }
    }
    if (!error) {
      return t;
    }
    IllegalStateException copy = new IllegalStateException(chain.toString());
    copy.setStackTrace(t.getStackTrace());
    return copy;
  }

  /** Raised when a task exceeds spark.rowmatch.memory.limit. */
  public static final class RowmatchMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RowmatchMemoryException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
