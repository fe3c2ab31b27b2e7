package io.rowmatch.cluster

import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters._

/**
 * Every JVM the cluster tests start, so that none outlives the test run: `destroyAll` kills each process tree
 * (descendants first: a Worker's executors, then the Worker, then the Master), and a JVM shutdown hook does
 * the same if the test JVM ends before `destroyAll` ran (an error, Ctrl-C, a killed Maven). Only processes
 * started here are ever killed.
 */
object ClusterProcesses {
  private val started = scala.collection.mutable.ArrayBuffer[(String, Process)]()
  private var hookInstalled = false

  def register(name: String, process: Process): Unit = synchronized {
    if (!hookInstalled) {
      Runtime.getRuntime.addShutdownHook(new Thread(() => destroyAll(), "rowmatch-cluster-cleanup"))
      hookInstalled = true
    }
    started += name -> process
  }

  /**
   * Kills every registered process tree, newest first; returns the names of processes that were alive. Then
   * every process of the trees as they were before is killed again if still alive: a Worker killed while it is
   * itself killing an executor leaves that executor to exit a moment later, no longer its descendant.
   */
  def destroyAll(): Seq[String] = synchronized {
    val before = liveTree()
    val alive = started.reverseIterator.map { case (name, p) =>
      val wasAlive = p.isAlive
      destroyTree(p.toHandle)
      name -> wasAlive
    }.toList
    before.foreach(kill)
    started.clear()
    alive.collect { case (name, true) => name }
  }

  /** Descendants (deepest first), then the process itself; waits until each is gone. */
  def destroyTree(root: ProcessHandle): Unit = {
    val descendants = root.descendants().iterator().asScala.toList.reverse
    (descendants :+ root).foreach(kill)
  }

  private def kill(h: ProcessHandle): Unit = if (h.isAlive) {
    h.destroyForcibly()
    try h.onExit().get(30, TimeUnit.SECONDS) catch { case _: Exception => () }
  }

  /** Processes registered and alive, with every live descendant (for "nothing left behind" checks). */
  def liveTree(): Seq[ProcessHandle] = synchronized {
    started.toSeq.flatMap { case (_, p) =>
      val h = p.toHandle
      (h +: h.descendants().iterator().asScala.toSeq).filter(_.isAlive)
    }
  }
}
