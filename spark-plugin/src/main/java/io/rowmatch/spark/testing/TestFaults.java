package io.rowmatch.spark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;

import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.config.RowmatchConf;

/**
 * TEST-ONLY fault injection inside Rowmatch operators, for the fault tests of the integration suites. Every
 * setting is off by default; with none set, {@link #wrap} returns its input untouched. Never set these in
 * production: they fail or stall tasks on purpose.
 *
 * <p>They take effect only in an application started with {@code spark.rowmatch.test.faultsEnabled=true}
 * (a SparkConf setting, read from the executor's startup conf): a session cannot switch them on.
 *
 * <p>The settings are session SQL settings ({@code spark.conf.set} or {@code --conf}); Spark copies the
 * session's {@code spark.*} settings into every task's local properties, which is where they are read, on the
 * executor, when a Rowmatch operator starts a partition.
 *
 * <ul>
 *   <li>{@value #FAIL_AFTER_BATCHES} = N: the first attempt of every task fails with a {@link InjectedFault}
 *       once its Rowmatch operator has taken N input batches (it then holds its tables and Arrow memory); the
 *       retry (attempt 1, see {@code spark.task.maxFailures}) runs normally.</li>
 *   <li>{@value #PAUSE_FILE} = path (one machine only): the first task attempt that takes an input batch in a
 *       Rowmatch operator claims the file, writes its JVM's process id into it and sleeps up to
 *       {@value #PAUSE_MILLIS} ms, so a test can kill that executor in the middle of the operator.</li>
 *   <li>{@value #OPERATOR}: limits both faults to operators whose name starts with it (e.g.
 *       {@code RowmatchHashJoin}); all Rowmatch operators when unset.</li>
 * </ul>
 */
public final class TestFaults {
  /** The startup switch (SparkConf, set when the application starts): the faults do nothing without it. */
  public static final String ENABLED = RowmatchConf.TEST_FAULTS_ENABLED_ENTRY.key();
  public static final String FAIL_AFTER_BATCHES = RowmatchConf.TEST_FAIL_AFTER_BATCHES_ENTRY.key();
  public static final String PAUSE_FILE = RowmatchConf.TEST_PAUSE_FILE_ENTRY.key();
  public static final String OPERATOR = RowmatchConf.TEST_FAULT_OPERATOR_ENTRY.key();
  /** How long a paused task sleeps if nobody kills it (then it goes on normally). */
  public static final long PAUSE_MILLIS = 120_000;

  private TestFaults() {}

  /** {@code input}, or when a test-only fault applies to this task and operator, a wrapper that injects it. */
  public static Iterator<ColumnarBatch> wrap(Iterator<ColumnarBatch> input, TaskContext task, String operator) {
    if (task == null) {
      return input;
    }
    String failAfter = task.getLocalProperty(FAIL_AFTER_BATCHES);
    String pauseFile = task.getLocalProperty(PAUSE_FILE);
    if (failAfter == null && pauseFile == null || !enabledAtStartup()) {
      return input;
    }
    String only = task.getLocalProperty(OPERATOR);
    if (only != null && !operator.startsWith(only.trim())) {
      return input;
    }
    long limit = failAfter == null ? -1 : parseBatches(failAfter); // a malformed value fails every attempt
    if (task.attemptNumber() > 0) {
      return input; // retries run normally: that is what the fault tests check
    }
    Path pause = pauseFile == null ? null : Path.of(pauseFile.trim());
    return new Iterator<>() {
      private long taken;

      @Override
      public boolean hasNext() {
        if (limit >= 0 && taken >= limit) {
          throw new InjectedFault(operator + " failed on purpose after " + taken + " input batches ("
              + FAIL_AFTER_BATCHES + "=" + limit + ", test-only) in task " + task.taskAttemptId()
              + " attempt " + task.attemptNumber());
        }
        return input.hasNext();
      }

      @Override
      public ColumnarBatch next() {
        ColumnarBatch batch = input.next();
        taken++;
        if (pause != null && taken == 1) {
          pauseIfFirst(pause, operator);
        }
        return batch;
      }
    };
  }

  /**
   * Whether the application started with {@value #ENABLED}=true. Read from the SparkConf the executor was
   * started with, which a session's {@code spark.conf.set} does not change.
   */
  public static boolean enabledAtStartup() {
    SparkEnv env = SparkEnv.get();
    return env != null && env.conf().getBoolean(ENABLED, false);
  }

  private static long parseBatches(String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n < 0) {
        throw new NumberFormatException("negative");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(FAIL_AFTER_BATCHES + " must be a number of batches >= 0, got '" + value
          + "'", e);
    }
  }

  /** The first caller on this machine claims {@code file} (atomically), publishes its pid and sleeps. */
  private static void pauseIfFirst(Path file, String operator) {
    Path claim = file.resolveSibling(file.getFileName() + ".claim");
    try {
      Files.createFile(claim);
    } catch (FileAlreadyExistsException e) {
      return; // another task paused already
    } catch (IOException e) {
      throw new UncheckedIOException("cannot claim the test pause file " + claim, e);
    }
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, ProcessHandle.current().pid() + " " + operator + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the test pause file " + file, e);
    }
    try {
      Thread.sleep(PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the task was killed: let Spark see the interrupt
    }
  }

  /** The failure {@value #FAIL_AFTER_BATCHES} injects. */
  public static final class InjectedFault extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InjectedFault(String message) {
      super(message);
    }
  }
}
