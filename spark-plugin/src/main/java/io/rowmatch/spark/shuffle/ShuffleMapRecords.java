package io.rowmatch.spark.shuffle;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Product2;
import scala.Tuple2;

/**
 * The map side of the Arrow shuffle: each input batch becomes one (partition id, encoded rows) record per
 * partition it has rows for. Only one batch's records are held at a time; Spark's shuffle writer consumes
 * them before the next batch is read, so the input batch may be reused or closed by its producer after.
 */
public final class ShuffleMapRecords implements Iterator<Product2<Object, byte[]>> {
  /** Told of each batch written: its rows, and its size as Spark's UnsafeRows (the statistics AQE reads). */
  @FunctionalInterface
  public interface BatchWritten {
    void accept(long rows, long unsafeRowBytes);
  }

  private final Iterator<ColumnarBatch> batches;
  private final BatchPartitionIds partitionIds;
  private final int numPartitions;
  private final PartitionedBatchEncoder encoder;
  private final BatchWritten written;
  private int[] pendingPartitions = new int[16];
  private byte[][] pendingRecords = new byte[16][];
  private int pendingCount;
  private int cursor;

  public ShuffleMapRecords(Iterator<ColumnarBatch> batches, BatchPartitionIds partitionIds, int numPartitions,
      PartitionedBatchEncoder encoder, BatchWritten written) {
    this.batches = batches;
    this.partitionIds = partitionIds;
    this.numPartitions = numPartitions;
    this.encoder = encoder;
    this.written = written;
  }

  @Override
  public boolean hasNext() {
    while (cursor == pendingCount) {
      if (!batches.hasNext()) {
        return false;
      }
      cursor = 0;
      pendingCount = 0;
      ColumnarBatch batch = batches.next();
      if (batch.numRows() > 0) {
        encoder.encode(batch, partitionIds.of(batch), numPartitions, this::hold);
        written.accept(batch.numRows(), encoder.unsafeRowBytes());
      }
    }
    return true;
  }

  @Override
  public Product2<Object, byte[]> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    byte[] record = pendingRecords[cursor];
    pendingRecords[cursor] = null;
    return new Tuple2<>(pendingPartitions[cursor++], record);
  }

  private void hold(int partition, byte[] record) {
    if (pendingCount == pendingRecords.length) {
      pendingPartitions = java.util.Arrays.copyOf(pendingPartitions, pendingCount * 2);
      pendingRecords = java.util.Arrays.copyOf(pendingRecords, pendingCount * 2);
    }
    pendingPartitions[pendingCount] = partition;
    pendingRecords[pendingCount++] = record;
  }
}
