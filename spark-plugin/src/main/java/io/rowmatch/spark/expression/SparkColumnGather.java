package io.rowmatch.spark.expression;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Chosen rows of one Spark (non-Arrow) column, in any order and with repeats, copied into a new Arrow vector: the
 * reader the fused scan filter uses ({@link SparkVecs}), so dictionary entries are decoded once per column chunk
 * and on-heap storage is read directly. One per column and partition (its dictionary caches live across batches).
 */
public final class SparkColumnGather {
  private final SparkVecs reader;
  /** The rows read are written into Arrow at once, so their arrays serve the next gather. */
  private final VecScratch scratch = new VecScratch();

  public SparkColumnGather(DataType type) {
    this.reader = new SparkVecs(type);
  }

  /** Whether columns of this type can be gathered here (flat types). */
  public static boolean gathers(DataType type) {
    return SparkVecs.readable(type);
  }

  /** Rows {@code rows[0..count)} of src (each in [0, src's rows)) as a new vector from {@code allocator}. */
  public FieldVector gather(ColumnVector src, int[] rows, int count, String name, boolean nullable, String timeZone,
      BufferAllocator allocator) {
    scratch.reset();
    return ArrowVecs.write(reader.read(src, rows, count, scratch), name, nullable, timeZone, allocator);
  }
}
