package org.apache.spark

/**
 * Waits until Spark's listener bus has delivered every event posted so far (the driver's task-end events
 * arrive asynchronously). In Spark's package because the bus is private[spark]; tests only.
 */
object ListenerBusDrain {
  def apply(sc: SparkContext, timeoutMillis: Long = 30000): Unit = sc.listenerBus.waitUntilEmpty(timeoutMillis)
}
