package io.rowmatch.cluster

import org.apache.spark.sql.SparkSession

/**
 * What each executor JVM says about its Arrow memory, read on the executors themselves through Spark SQL's
 * `reflect` (a static call evaluated per row, in the task): the plugin's test-visible accounting
 * (TaskArrowMemory.openAllocators / rootAllocatedBytes), after closing the broadcast build sides that sit idle
 * in their cache. Needs no class of this test module on the executors.
 */
final case class ExecutorMemory(executorId: String, openAllocators: Int, arrowBytes: Long, idleBuildSidesClosed: Int)

object ExecutorProbe {
  /** One report per executor that ran a probe task; repeats the probe until every id in `expect` answered. */
  def memory(spark: SparkSession, expect: Set[String], attempts: Int = 10): Map[String, ExecutorMemory] = {
    var seen = Map.empty[String, ExecutorMemory]
    var attempt = 0
    while (attempt < attempts && !expect.subsetOf(seen.keySet)) {
      attempt += 1
      val rows = spark.range(0, 16, 1, 16).selectExpr(
        "reflect('java.lang.Thread', 'sleep', cast(150 as bigint)) as slept",
        "reflect('io.rowmatch.spark.join.BroadcastJoinTables', 'closeIdleNow') as closed",
        "reflect('io.rowmatch.spark.memory.TaskArrowMemory', 'openAllocators') as open",
        "reflect('io.rowmatch.spark.memory.TaskArrowMemory', 'rootAllocatedBytes') as bytes",
        "reflect('java.lang.System', 'getProperty', 'sun.java.command') as command").collect()
      rows.foreach { r =>
        val command = r.getString(4).split(" ").toSeq
        val at = command.indexOf("--executor-id")
        require(at >= 0, s"the probe ran outside an executor: ${r.getString(4)}")
        val id = command(at + 1)
        val report = ExecutorMemory(id, r.getString(2).toInt, r.getString(3).toLong, r.getString(1).toInt)
        seen += id -> report
      }
    }
    seen
  }
}
