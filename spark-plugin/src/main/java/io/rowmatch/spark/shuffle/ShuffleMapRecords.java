package io.rowmatch.spark.shuffle;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.LongConsumer;

import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Product2;
import scala.Tuple2;

/**
 * The map side of the Arrow shuffle: each input batch becomes one (partition id, encoded rows) record per
 * partition it has rows for. Only one batch's records are held at a time; Spark's shuffle writer consumes
 * them before the next batch is read, so the input batch may be reused or closed by its producer after.
 */
public final class ShuffleMapRecords implements Iterator<Product2<Object, byte[]>> {
  private final Iterator<ColumnarBatch> batches;
  private final BatchPartitionIds partitionIds;
  private final int numPartitions;
  private final PartitionedBatchEncoder encoder;
  private final LongConsumer rowsWritten;
  private int[] pendingPartitions = new int[16];
  private byte[][] pendingRecords = new byte[16][];
  private int pendingCount;
  private int cursor;

  public ShuffleMapRecords(Iterator<ColumnarBatch> batches, BatchPartitionIds partitionIds, int numPartitions,
      PartitionedBatchEncoder encoder, LongConsumer rowsWritten) {
    this.batches = batches;
    this.partitionIds = partitionIds;
    this.numPartitions = numPartitions;
    this.encoder = encoder;
    this.rowsWritten = rowsWritten;
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
        rowsWritten.accept(batch.numRows());
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
