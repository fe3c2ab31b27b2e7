package org.apache.spark

import org.apache.spark.util.collection.unsafe.sort.{PrefixComparators, RecordComparator, UnsafeExternalSorter}

/** Test access to a task's TaskMemoryManager (private to Spark) and to a Spark sorter of the task. */
object TaskMemoryAccess {
  /** What the running task's memory manager says the task holds (every consumer: Spark's and Rowmatch's). */
  def consumption(): Long = TaskContext.get().taskMemoryManager().getMemoryConsumptionForThisTask

  /**
   * The sorter Spark's SortExec uses (UnsafeExternalSorter), of the running task, freed when it completes.
   * Records are only inserted (with distinct prefixes), so the record comparator is never asked.
   */
  def sorter(): UnsafeExternalSorter = {
    val ctx = TaskContext.get()
    val env = SparkEnv.get
    val noOrder: java.util.function.Supplier[RecordComparator] = () => new RecordComparator {
      override def compare(l: AnyRef, lo: Long, ll: Int, r: AnyRef, ro: Long, rl: Int): Int = 0
    }
    val s = SparkLineTestShim.externalSorter(ctx, env, noOrder, PrefixComparators.LONG, 1024, Int.MaxValue,
      Long.MaxValue)
    ctx.addTaskCompletionListener[Unit](_ => s.cleanupResources())
    s
  }
}
