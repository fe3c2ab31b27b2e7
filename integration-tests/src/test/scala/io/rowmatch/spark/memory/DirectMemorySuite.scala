package io.rowmatch.spark.memory

import org.scalatest.funsuite.AnyFunSuite

import io.rowmatch.spark.ChildJvm

/**
 * Never fatal: a JVM with 96 MB of direct memory (Rowmatch's share: 80% of it for all tasks) runs Spark on
 * local[4] over joins, an aggregation and a distinct whose Arrow state wants more than that
 * (DirectMemoryMain, a child JVM: the limit is a JVM flag). No OutOfMemoryError reaches the executor (the JVM
 * would exit), each query answers as vanilla Spark (spilling) or fails with Rowmatch's error naming the
 * settings to raise, the session answers a query afterwards, and no allocator, Arrow buffer or spill file is
 * left.
 */
class DirectMemorySuite extends AnyFunSuite {
  test("96 MB of direct memory, four concurrent tasks: spills or Rowmatch's error, never an OutOfMemoryError") {
    val child = ChildJvm.run(classOf[DirectMemoryMain.type].getName.stripSuffix("$"),
      Seq("-Xmx1500m", "-XX:MaxDirectMemorySize=96m"))
    val lines = child.lines
    def tail = child.tail
    assert(child.finished, s"the child JVM did not finish in 10 minutes:\n$tail")
    // An error reaching an executor thread goes to Spark's uncaught-exception handler, which exits the JVM.
    assert(!child.output.contains("SparkUncaughtExceptionHandler") && !child.output.contains("java.lang.OutOfMemoryError"),
      s"a fatal error reached the executor:\n$tail")
    assert(child.exitCode == 0, s"the child JVM exited with ${child.exitCode}:\n$tail")
    val results = lines.filter(_.startsWith("RESULT "))
    assert(results.size == 3, s"not every query reported:\n$tail")
    for (r <- results) {
      val outcome = r.split(" ", 3)(2)
      assert(outcome == "same" || (outcome.startsWith("failed") && outcome.contains("RowmatchMemoryException") &&
        outcome.contains("spark.rowmatch.memory.limit")), s"$r\n$tail")
    }
    info(results.mkString("; "))
    assert(lines.contains("AFTER 1000"), s"the session did not answer after the queries:\n$tail")
    assert(lines.contains("ALLOCATORS 0 ROOT 0 SPILLFILES 0"), s"memory or files left:\n$tail")
    assert(lines.contains("DONE"), tail)
  }
}
