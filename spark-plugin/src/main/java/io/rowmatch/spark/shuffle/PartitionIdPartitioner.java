package io.rowmatch.spark.shuffle;

import org.apache.spark.Partitioner;

/** The shuffle's partitioner: map-side keys already are the partition ids (computed per batch). */
public final class PartitionIdPartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;
  private final int numPartitions;

  public PartitionIdPartitioner(int numPartitions) {
    this.numPartitions = numPartitions;
  }

  @Override
  public int numPartitions() {
    return numPartitions;
  }

  @Override
  public int getPartition(Object key) {
    return (Integer) key;
  }
}
