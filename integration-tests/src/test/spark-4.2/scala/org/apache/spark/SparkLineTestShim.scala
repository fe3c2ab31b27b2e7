package org.apache.spark

import org.apache.spark.internal.config.UNSAFE_SORTER_SPILL_MERGE_FACTOR
import org.apache.spark.util.collection.unsafe.sort.{PrefixComparator, RecordComparator, UnsafeExternalSorter}

/**
 * The tests' side of the shim layer (the plugin's is io.rowmatch.spark.shim.SparkLine): the Spark internals the
 * tests call whose signatures differ between Spark lines. One copy per line, in src/test/spark-<line>/scala.
 */
object SparkLineTestShim {
  /** Spark 4.2's UnsafeExternalSorter.create takes the spill merge factor too: the setting's value, as Spark's does. */
  def externalSorter(ctx: TaskContext, env: SparkEnv, order: java.util.function.Supplier[RecordComparator],
      prefix: PrefixComparator, initialSize: Int, numElementsForSpill: Int, sizeForSpill: Long): UnsafeExternalSorter =
    UnsafeExternalSorter.create(ctx.taskMemoryManager(), env.blockManager, env.serializerManager, ctx, order, prefix,
      initialSize, ctx.taskMemoryManager().pageSizeBytes(), numElementsForSpill, sizeForSpill,
      env.conf.get(UNSAFE_SORTER_SPILL_MERGE_FACTOR), false)
}
