package io.rowmatch.spark

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters._

/**
 * Runs a main class in a child JVM, for tests whose subject is a JVM-wide fact (a direct-memory limit, which
 * Rowmatch jar is on the class path). The child gets this JVM's flags (add-opens for Arrow and Spark) without
 * its heap and direct-memory sizes or agents; its stdout and stderr are read as one log.
 */
object ChildJvm {
  final case class Outcome(finished: Boolean, exitCode: Int, lines: Seq[String]) {
    def tail: String = lines.takeRight(60).mkString("\n")
    def output: String = lines.mkString("\n")
  }

  def testClassPath: Seq[String] =
    System.getProperty("java.class.path").split(File.pathSeparator).toSeq.filter(_.nonEmpty)

  def run(mainClass: String, flags: Seq[String], classPath: Seq[String] = testClassPath,
      timeoutMinutes: Long = 10): Outcome = {
    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    val inherited = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filterNot(a =>
      a.startsWith("-Xmx") || a.startsWith("-XX:MaxDirectMemorySize") || a.startsWith("-agentlib") ||
        a.startsWith("-javaagent"))
    val log = Files.createTempFile("rowmatch-child-jvm", ".log")
    try {
      val command = Seq(java) ++ inherited ++ flags ++ Seq("-cp", classPath.mkString(File.pathSeparator), mainClass)
      val child = new ProcessBuilder(command.asJava).redirectErrorStream(true).redirectOutput(log.toFile).start()
      val finished = child.waitFor(timeoutMinutes, TimeUnit.MINUTES)
      if (!finished) {
        child.destroyForcibly()
        child.waitFor(30, TimeUnit.SECONDS)
      }
      val out = new String(Files.readAllBytes(log), StandardCharsets.UTF_8)
      Outcome(finished, if (finished) child.exitValue() else -1, out.linesIterator.toSeq)
    } finally {
      Files.deleteIfExists(log)
    }
  }
}
