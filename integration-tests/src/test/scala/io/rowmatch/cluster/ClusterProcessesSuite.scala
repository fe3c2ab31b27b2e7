package io.rowmatch.cluster

import java.io.File
import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The cluster tests leave no process behind: destroyAll kills whole process trees (a Worker and its
 * executors), and when the test JVM dies without calling it, the shutdown hook does. Checked on `sleep`
 * trees, so it runs in the default suite in a second.
 */
class ClusterProcessesSuite extends AnyFunSuite {
  private def awaitDead(pid: Long): Boolean = {
    val handle = ProcessHandle.of(pid)
    !handle.isPresent || {
      try handle.get.onExit().get(10, TimeUnit.SECONDS) catch { case _: Exception => () }
      !handle.get.isAlive
    }
  }

  test("destroyAll kills every registered process with its descendants") {
    val shell = new ProcessBuilder("sh", "-c", "sleep 300 & sleep 300 & wait").start()
    ClusterProcesses.register("tree", shell)
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    while (shell.toHandle.children().count() < 2 && System.nanoTime() < deadline) Thread.sleep(10)
    val tree = ClusterProcesses.liveTree()
    assert(tree.size == 3, s"expected the shell and its two sleeps, got ${tree.map(_.pid())}")
    assert(ClusterProcesses.destroyAll() == Seq("tree"))
    tree.foreach(h => assert(awaitDead(h.pid()), s"process ${h.pid()} survived destroyAll"))
    assert(ClusterProcesses.liveTree().isEmpty)
  }

  test("a test JVM that dies without cleaning up still kills its process trees (shutdown hook)") {
    val java = new File(System.getProperty("java.home"), "bin/java").toString
    val child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
      OrphanCheckMain.getClass.getName.stripSuffix("$")).redirectErrorStream(true).start()
    val output = new String(child.getInputStream.readAllBytes(), StandardCharsets.UTF_8)
    assert(child.waitFor(60, TimeUnit.SECONDS) && child.exitValue() != 0, output)
    val pids = output.linesIterator.find(_.startsWith("pids ")).getOrElse(fail(output))
      .stripPrefix("pids ").trim.split(" ").map(_.toLong).toSeq
    assert(pids.size == 2, output) // the shell and its sleep
    pids.foreach(pid => assert(awaitDead(pid), s"process $pid outlived the JVM that started it\n$output"))
    assert(output.contains("the test JVM dies here"), output)
    assert(!ProcessHandle.current().descendants().iterator().asScala.exists(h => pids.contains(h.pid())))
  }
}
