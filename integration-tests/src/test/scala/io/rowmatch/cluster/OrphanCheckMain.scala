package io.rowmatch.cluster

/**
 * A child JVM for ClusterProcessesSuite: registers a process tree (a shell and its `sleep`) with
 * ClusterProcesses, prints the pids, then dies of an uncaught exception without cleaning up, as a crashed test
 * JVM would. Only the shutdown hook can kill the tree.
 */
object OrphanCheckMain {
  def main(args: Array[String]): Unit = {
    val shell = new ProcessBuilder("sh", "-c", "sleep 300 & wait").start()
    ClusterProcesses.register("orphan-check", shell)
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while (shell.toHandle.children().count() == 0 && System.nanoTime() < deadline) Thread.sleep(10)
    val children = shell.toHandle.children().toArray.map(_.asInstanceOf[ProcessHandle].pid())
    println(s"pids ${shell.pid()} ${children.mkString(" ")}")
    System.out.flush()
    throw new IllegalStateException("the test JVM dies here without calling destroyAll")
  }
}
