package io.rowmatch.spark.shuffle;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * Spark's hash partitioning (pmod(murmur3(keys, seed 42), n), the value of
 * {@code HashPartitioning.partitionIdExpression}) computed column by column on Arrow buffers, for keys that
 * are plain columns of integral, date, timestamp, boolean, binary-collated string or binary type. It must
 * give exactly Spark's ids, so that a Rowmatch exchange and a vanilla one agree; tests compare it with
 * Spark's own expression. Any other key keeps Spark's projection (SparkPartitionIds).
 */
public final class ColumnarPartitionIds implements BatchPartitionIds {
  /** Murmur3Hash's default seed, as HashPartitioning uses it. */
  static final int SEED = 42;

  private static final int INT = 0; // byte, short, int, date: Spark hashes them as ints
  private static final int LONG = 1; // long and both timestamps
  private static final int BOOL = 2;
  private static final int VAR = 3; // string (binary collation) and binary: murmur3 over the bytes

  private final int[] columns;
  private final int[] kinds;
  private final int numPartitions;
  private int[] hashes = new int[0];

  private ColumnarPartitionIds(int[] columns, int[] kinds, int numPartitions) {
    this.columns = columns;
    this.kinds = kinds;
    this.numPartitions = numPartitions;
  }

  /** The columnar ids for these key columns, or null when a key type needs Spark's projection. */
  public static ColumnarPartitionIds forKeys(int[] columns, DataType[] types, int numPartitions) {
    int[] kinds = new int[types.length];
    for (int i = 0; i < types.length; i++) {
      kinds[i] = kindOf(types[i]);
      if (kinds[i] < 0) {
        return null;
      }
    }
    return new ColumnarPartitionIds(columns.clone(), kinds, numPartitions);
  }

  private static int kindOf(DataType t) {
    if (t instanceof IntegerType || t instanceof DateType || t instanceof ShortType || t instanceof ByteType) {
      return INT;
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return LONG;
    } else if (t instanceof BooleanType) {
      return BOOL;
    } else if (t instanceof BinaryType || (t instanceof StringType s && s.isUTF8BinaryCollation())) {
      return VAR;
    }
    return -1;
  }

  @Override
  public int[] of(ColumnarBatch batch) {
    int n = batch.numRows();
    if (hashes.length < n) {
      hashes = new int[n];
    }
    int[] h = hashes;
    java.util.Arrays.fill(h, 0, n, SEED);
    for (int k = 0; k < columns.length; k++) {
      ValueVector v = ((ArrowColumnVector) batch.column(columns[k])).getValueVector();
      hashColumn(v, kinds[k], n, h, columns[k]);
    }
    for (int r = 0; r < n; r++) {
      int mod = h[r] % numPartitions;
      h[r] = mod < 0 ? mod + numPartitions : mod;
    }
    return h;
  }

  private static void hashColumn(ValueVector v, int kind, int n, int[] h, int column) {
    if (v.getValueCount() < n) {
      throw new IllegalStateException("shuffle key column " + column + " has " + v.getValueCount()
          + " values for a batch of " + n + " rows");
    }
    // An empty validity buffer is Arrow's "no nulls": address 0 reads as all valid.
    ArrowBuf validity = v.getValidityBuffer();
    long validityAddress = validity.capacity() == 0 ? 0 : validity.memoryAddress();
    if (validityAddress != 0 && validity.capacity() < (n + 7) / 8) {
      throw new IllegalStateException("shuffle key column " + column + ": validity buffer too short for " + n + " rows");
    }
    ArrowBuf data = v.getDataBuffer();
    long address = data.memoryAddress();
    switch (kind) {
      case INT -> {
        int width = ((FieldVector) v).getField().getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int i
            ? i.getBitWidth() / 8 : 4; // DateDay is 4 bytes
        requireCapacity(data, (long) n * width, column);
        for (int r = 0; r < n; r++) {
          if (valid(validityAddress, r)) {
            int value = switch (width) {
              case 1 -> Platform.getByte(null, address + r);
              case 2 -> Platform.getShort(null, address + 2L * r);
              default -> Platform.getInt(null, address + 4L * r);
            };
            h[r] = Murmur3_x86_32.hashInt(value, h[r]);
          }
        }
      }
      case LONG -> {
        requireCapacity(data, 8L * n, column);
        for (int r = 0; r < n; r++) {
          if (valid(validityAddress, r)) {
            h[r] = Murmur3_x86_32.hashLong(Platform.getLong(null, address + 8L * r), h[r]);
          }
        }
      }
      case BOOL -> {
        requireCapacity(data, (n + 7) / 8, column);
        for (int r = 0; r < n; r++) {
          if (valid(validityAddress, r)) {
            h[r] = Murmur3_x86_32.hashInt(bit(address, r) ? 1 : 0, h[r]);
          }
        }
      }
      default -> {
        ArrowBuf offsets = ((BaseVariableWidthVector) v).getOffsetBuffer();
        requireCapacity(offsets, 4L * (n + 1), column);
        long offsetsAddress = offsets.memoryAddress();
        long dataCapacity = data.capacity();
        for (int r = 0; r < n; r++) {
          if (valid(validityAddress, r)) {
            int start = Platform.getInt(null, offsetsAddress + 4L * r);
            int end = Platform.getInt(null, offsetsAddress + 4L * r + 4);
            if (start < 0 || end < start || end > dataCapacity) {
              throw new IllegalStateException("shuffle key column " + column + ", row " + r + ": offsets "
                  + start + ".." + end + " outside its data buffer of " + dataCapacity + " bytes");
            }
            h[r] = Murmur3_x86_32.hashUnsafeBytes(null, address + start, end - start, h[r]);
          }
        }
      }
    }
  }

  private static boolean valid(long validityAddress, int row) {
    return validityAddress == 0 || bit(validityAddress, row);
  }

  private static boolean bit(long bitmap, int row) {
    return ((Platform.getByte(null, bitmap + (row >>> 3)) >>> (row & 7)) & 1) != 0;
  }

  private static void requireCapacity(ArrowBuf buffer, long bytes, int column) {
    if (buffer.capacity() < bytes) {
      throw new IllegalStateException("shuffle key column " + column + ": buffer of " + buffer.capacity()
          + " bytes, " + bytes + " needed");
    }
  }
}
