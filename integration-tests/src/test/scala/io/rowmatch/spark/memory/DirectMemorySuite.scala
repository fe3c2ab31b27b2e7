package io.rowmatch.spark.memory

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

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
    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    // The test JVM's flags (add-opens for Arrow and Spark), without its heap and direct-memory sizes.
    val inherited = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filterNot(a =>
      a.startsWith("-Xmx") || a.startsWith("-XX:MaxDirectMemorySize") || a.startsWith("-agentlib") ||
        a.startsWith("-javaagent"))
    val log = Files.createTempFile("rowmatch-direct-memory", ".log")
    try {
      val command = Seq(java) ++ inherited ++ Seq("-Xmx1500m", "-XX:MaxDirectMemorySize=96m",
        "-cp", System.getProperty("java.class.path"), classOf[DirectMemoryMain.type].getName.stripSuffix("$"))
      val child = new ProcessBuilder(command.asJava).redirectErrorStream(true).redirectOutput(log.toFile).start()
      val finished = child.waitFor(10, TimeUnit.MINUTES)
      if (!finished) child.destroyForcibly()
      val out = new String(Files.readAllBytes(log), StandardCharsets.UTF_8)
      val lines = out.linesIterator.toSeq
      def tail = lines.takeRight(60).mkString("\n")
      assert(finished, s"the child JVM did not finish in 10 minutes:\n$tail")
      // An error reaching an executor thread goes to Spark's uncaught-exception handler, which exits the JVM.
      assert(!out.contains("SparkUncaughtExceptionHandler") && !out.contains("java.lang.OutOfMemoryError"),
        s"a fatal error reached the executor:\n$tail")
      assert(child.exitValue() == 0, s"the child JVM exited with ${child.exitValue()}:\n$tail")
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
    } finally {
      Files.deleteIfExists(log)
    }
  }
}
