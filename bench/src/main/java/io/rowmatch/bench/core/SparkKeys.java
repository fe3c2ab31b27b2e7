package io.rowmatch.bench.core;

import org.apache.spark.SparkConf;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The Spark anchor's pieces: a task memory manager over Spark's unified (on-heap, Tungsten) memory manager,
 * as an executor task has, and key rows written with {@link UnsafeRowWriter} the way the generated
 * UnsafeProjection of a grouping or join key writes them.
 */
public final class SparkKeys {
  private SparkKeys() {}

  public static TaskMemoryManager taskMemoryManager(long heapBytes) {
    SparkConf conf = new SparkConf(false);
    UnifiedMemoryManager mm = new UnifiedMemoryManager(conf, heapBytes, heapBytes / 2, 1);
    return new TaskMemoryManager(mm, 0);
  }

  /** Input rows as Spark holds them before the key projection: a long, then a UTF8String or a long, per row. */
  public static final class Input {
    public final long[] a;
    public final UTF8String[] b;
    public final long[] c;

    public Input(int rows, KeyData.KeyIds ids, KeyData.Shape shape) {
      a = new long[rows];
      b = shape == KeyData.Shape.BIGINT_VARCHAR ? new UTF8String[rows] : null;
      c = shape == KeyData.Shape.BIGINT_BIGINT ? new long[rows] : null;
      for (int i = 0; i < rows; i++) {
        long k = ids.of(i);
        a[i] = KeyData.bigint(k);
        if (b != null) {
          b[i] = UTF8String.fromBytes(KeyData.varchar(k));
        }
        if (c != null) {
          c[i] = KeyData.secondBigint(k);
        }
      }
    }

    /** Key fields of a row. */
    public int fields() {
      return b == null && c == null ? 1 : 2;
    }
  }

  /** Writes row {@code i}'s key into {@code writer} and returns the key row (reused). */
  public static UnsafeRow key(UnsafeRowWriter writer, Input in, int i) {
    writer.reset();
    writer.zeroOutNullBytes();
    writer.write(0, in.a[i]);
    if (in.b != null) {
      writer.write(1, in.b[i]);
    }
    if (in.c != null) {
      writer.write(1, in.c[i]);
    }
    return writer.getRow();
  }
}
