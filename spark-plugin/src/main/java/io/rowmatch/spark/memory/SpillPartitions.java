package io.rowmatch.spark.memory;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.core.hash.RowHasher;

/**
 * Rows spilled to {@value #FANOUT} files by 4 bits of their keys' {@link RowHasher} hash. Level 0 takes the top
 * bits (60-63), level n the next 4 below: Spark's shuffle partitioner is Murmur3 (another hash), and the
 * key tables index by the low bits, so neither a shuffle partition nor a table sees clustered hashes. Two
 * sides partitioned with the same key types and level put equal keys in the same partition number.
 */
public final class SpillPartitions implements AutoCloseable {
  public static final int BITS = 4;
  public static final int FANOUT = 1 << BITS;
  /** Levels of repartitioning; below them, 8 bits remain (the tables' low bits). */
  public static final int MAX_LEVELS = 14;

  private final RowHasher hasher;
  private final int shift;
  private final int batchSize;
  private final SpillFile[] files = new SpillFile[FANOUT];
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  private long[] hashes = new long[0];
  private int[] order = new int[0];
  private long bytesReported;

  /** nansEqual: per key, as the table compares it (the hash of NaN is canonical then). */
  public SpillPartitions(boolean[] nansEqual, int level, int batchSize) {
    if (level >= MAX_LEVELS) {
      throw new IllegalArgumentException("spill level " + level + " past " + MAX_LEVELS);
    }
    this.hasher = new RowHasher(nansEqual);
    this.shift = 64 - BITS * (level + 1);
    this.batchSize = batchSize;
  }

  /**
   * Writes rows [0, rows) of {@code columns} (all of one schema from call to call) to the partitions of their
   * {@code keys}, in row order, in batches of at most batchSize rows.
   */
  public void write(List<? extends ValueVector> keys, List<? extends ValueVector> columns, int rows,
      BufferAllocator allocator) {
    if (rows == 0) {
      return;
    }
    if (files[0] == null) {
      List<Field> fields = new ArrayList<>(columns.size());
      for (ValueVector v : columns) {
        fields.add(v.getField());
      }
      Schema schema = new Schema(fields);
      for (int p = 0; p < FANOUT; p++) {
        files[p] = SpillFile.create(schema);
      }
    }
    if (hashes.length < rows) {
      hashes = new long[rows];
      order = new int[rows];
    }
    hasher.hash(keys, rows, hashes);
    int[] starts = new int[FANOUT + 1];
    for (int i = 0; i < rows; i++) {
      starts[partition(hashes[i]) + 1]++;
    }
    for (int p = 0; p < FANOUT; p++) {
      starts[p + 1] += starts[p];
    }
    int[] fill = starts.clone();
    for (int i = 0; i < rows; i++) {
      order[fill[partition(hashes[i])]++] = i;
    }
    int[] chosen = new int[Math.min(rows, batchSize)];
    for (int p = 0; p < FANOUT; p++) {
      for (int from = starts[p]; from < starts[p + 1]; from += chosen.length) {
        int count = Math.min(chosen.length, starts[p + 1] - from);
        System.arraycopy(order, from, chosen, 0, count);
        List<FieldVector> slice = new ArrayList<>(columns.size());
        try {
          for (ValueVector src : columns) {
            FieldVector dst = src.getField().createVector(allocator);
            slice.add(dst);
            ArrowCopy.gather(src, chosen, count, dst, scratch);
          }
          files[p].write(slice, count);
        } finally {
          for (FieldVector v : slice) {
            v.close();
          }
        }
      }
    }
  }

  private int partition(long hash) {
    return (int) (hash >>> shift) & (FANOUT - 1);
  }

  public boolean isEmpty() {
    return files[0] == null;
  }

  /** Partition p's file (null when nothing was written). */
  public SpillFile file(int p) {
    return files[p];
  }

  /** Bytes on disk written since the last call (flushing first). */
  public long newBytes() {
    long total = 0;
    for (SpillFile f : files) {
      if (f != null) {
        f.flush();
        total += f.bytesWritten();
      }
    }
    long n = total - bytesReported;
    bytesReported = total;
    return n;
  }

  public void finish() {
    for (SpillFile f : files) {
      if (f != null) {
        f.finish();
      }
    }
  }

  /** Deletes every file (idempotent). */
  @Override
  public void close() {
    for (SpillFile f : files) {
      if (f != null) {
        f.delete();
      }
    }
  }
}
