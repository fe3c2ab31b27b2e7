package io.rowmatch.spark.metrics;

import java.util.Iterator;

import org.apache.spark.sql.execution.metric.SQLMetric;

/**
 * Time metrics of Rowmatch operators, measured per batch (two clock reads per call of hasNext or next,
 * never per row). An operator's own time is the time in its output iterator minus the time its input
 * iterator took inside it: the child operators' work, which their own metrics show. Spark's names that
 * include the input (e.g. "time in aggregation build") are measured as Spark does, with {@link #total}.
 */
public final class OperatorTime {
  private long inputNanos;

  /** The time in the iterator's hasNext and next, the input's included, added to the metric (nanoseconds). */
  public static <T> Iterator<T> total(Iterator<T> out, SQLMetric nanos) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        long start = System.nanoTime();
        try {
          return out.hasNext();
        } finally {
          nanos.add(System.nanoTime() - start);
        }
      }

      @Override
      public T next() {
        long start = System.nanoTime();
        try {
          return out.next();
        } finally {
          nanos.add(System.nanoTime() - start);
        }
      }
    };
  }

  /** The operator's input: its time is subtracted from the output's (see {@link #own}). */
  public <T> Iterator<T> input(Iterator<T> in) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        long start = System.nanoTime();
        try {
          return in.hasNext();
        } finally {
          inputNanos += System.nanoTime() - start;
        }
      }

      @Override
      public T next() {
        long start = System.nanoTime();
        try {
          return in.next();
        } finally {
          inputNanos += System.nanoTime() - start;
        }
      }
    };
  }

  /** The operator's output: the time in its hasNext and next less the input's time within them. */
  public <T> Iterator<T> own(Iterator<T> out, SQLMetric nanos) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        long start = System.nanoTime();
        long before = inputNanos;
        try {
          return out.hasNext();
        } finally {
          nanos.add(Math.max(0, System.nanoTime() - start - (inputNanos - before)));
        }
      }

      @Override
      public T next() {
        long start = System.nanoTime();
        long before = inputNanos;
        try {
          return out.next();
        } finally {
          nanos.add(Math.max(0, System.nanoTime() - start - (inputNanos - before)));
        }
      }
    };
  }

  /** Runs the step (e.g. a hash table's build, which reads the build side) and adds its time to the metric. */
  public static <T> T time(java.util.function.Supplier<T> step, SQLMetric nanos) {
    long start = System.nanoTime();
    try {
      return step.get();
    } finally {
      nanos.add(System.nanoTime() - start);
    }
  }
}
