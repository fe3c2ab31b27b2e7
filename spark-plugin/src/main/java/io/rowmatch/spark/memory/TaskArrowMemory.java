package io.rowmatch.spark.memory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.util.TaskCompletionListener;

import io.rowmatch.spark.config.RowmatchConf;

/**
 * One Arrow allocator per task, a child of Spark's Arrow root allocator limited to
 * {@code spark.rowmatch.memory.limit}. Every Rowmatch operator of a task draws from it; it is closed when
 * the task completes, successfully or not. Operators register their own cleanup after fetching the
 * allocator, and Spark runs completion listeners in reverse order, so their buffers are released before
 * the allocator closes; a buffer still held then is a leak and fails the task.
 */
public final class TaskArrowMemory {
  private static final ConcurrentHashMap<Long, BufferAllocator> BY_TASK = new ConcurrentHashMap<>();

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
    BufferAllocator created = ArrowUtils.rootAllocator()
        .newChildAllocator("rowmatch-task-" + id, 0, limitBytes);
    BY_TASK.put(id, created);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      BY_TASK.remove(id);
      created.close();
    });
    return created;
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

  /** The error a user sees when a task needs more than the limit: it names the setting to raise. */
  public static RuntimeException outOfMemory(String operator, long limitBytes, OutOfMemoryException cause) {
    return new RowmatchMemoryException(operator + " needs more memory than " + RowmatchConf.MEMORY_LIMIT
        + " allows per task (" + limitBytes + " bytes); raise " + RowmatchConf.MEMORY_LIMIT
        + " or set spark.rowmatch.enabled=false", cause);
  }

  /** Raised when a task exceeds spark.rowmatch.memory.limit. */
  public static final class RowmatchMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RowmatchMemoryException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
