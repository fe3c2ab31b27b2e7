package io.rowmatch.spark

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.{ExceptionFailure, ListenerBusDrain, SparkException}

import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.testing.TestFaults

/**
 * Faults inside Rowmatch operators in local mode (`local[2,2]`: two threads, a task may fail once and be
 * retried): a failure injected with the test-only setting spark.rowmatch.test.failAfterBatches is retried and
 * the answer equals vanilla Spark's; a memory limit too small fails the query with an error naming
 * spark.rowmatch.memory.limit. After every test no task allocator is open and no Arrow memory is held
 * (RowmatchQueryTest.afterEach). The same faults on a real cluster: io.rowmatch.cluster.StandaloneClusterSuite.
 */
class TaskFaultSuite extends RowmatchQueryTest {
  // TestFaults.ENABLED is a startup setting: without it the fault settings do nothing.
  override protected lazy val spark: SparkSession = rowmatchSession("local[2,2]", TestFaults.ENABLED -> "true")

  private val failures = new ConcurrentLinkedQueue[String]()

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.sparkContext.addSparkListener(new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit = e.reason match {
        case f: ExceptionFailure => failures.add(s"${f.className}: ${f.description}")
        case _ =>
      }
    })
  }


  /** Task failures seen so far, once every event of the queries run so far is delivered. */
  private def failuresSoFar(): Seq[String] = {
    ListenerBusDrain(spark.sparkContext)
    failures.asScala.toSeq
  }

  /**
   * After a job is aborted, its other tasks may still be running (Spark kills them without waiting): wait for
   * them, so that the leak checks of afterEach see every task ended.
   */
  private def awaitNoRunningTask(): Unit = {
    val deadline = System.nanoTime() + 30L * 1000 * 1000 * 1000
    def running = spark.sparkContext.statusTracker.getExecutorInfos.map(_.numRunningTasks()).sum
    while (running > 0 && System.nanoTime() < deadline) Thread.sleep(20)
    assert(running == 0, "tasks of the failed job are still running after 30 s")
  }

  /** The injected failures in `operator` the driver has seen since `from`. */
  private def injectedSince(from: Int, operator: String): Seq[String] = {
    val seen = failuresSoFar().drop(from)
      .filter(f => f.contains(classOf[TestFaults.InjectedFault].getName) && f.contains(operator))
    assert(seen.nonEmpty, s"no injected failure in $operator: ${failuresSoFar().drop(from)}")
    seen
  }

  private def groups: DataFrame =
    spark.range(0, 20000, 1, 4).selectExpr("id % 97 as k", "id as v", "cast(id % 7 as double) as d")

  // First: a query that failed on purpose may still report task ends of its other tasks later.
  test("the fault settings are off by default: no task fails") {
    val from = failuresSoFar().size
    checkAnswerAndOperator(groups.groupBy("k").agg("v" -> "sum"))
    assert(failuresSoFar().drop(from).isEmpty, failuresSoFar().drop(from))
  }

  test("a failure injected in a Rowmatch aggregation is retried and the answer equals vanilla Spark's") {
    val from = failuresSoFar().size
    withConf(TestFaults.FAIL_AFTER_BATCHES -> "3", TestFaults.OPERATOR -> "RowmatchHashAggregate") {
      checkAnswerAndOperator(groups.groupBy("k").agg("v" -> "sum", "d" -> "max", "*" -> "count"))
    }
    val injected = injectedSince(from, "RowmatchHashAggregate")
    assert(injected.forall(_.contains(TestFaults.FAIL_AFTER_BATCHES)), injected.mkString("\n"))
  }

  for ((strategy, settings) <- Seq(
      "shuffled hash" -> Seq("spark.sql.autoBroadcastJoinThreshold" -> "-1",
        "spark.sql.join.preferSortMergeJoin" -> "false"),
      "broadcast" -> Seq("spark.sql.autoBroadcastJoinThreshold" -> "100000000"))) {
    test(s"a failure injected in a Rowmatch $strategy join is retried and the answer equals vanilla Spark's") {
      val from = failuresSoFar().size
      val pairs = settings ++ Seq(TestFaults.FAIL_AFTER_BATCHES -> "2", TestFaults.OPERATOR -> "RowmatchHashJoin")
      withConf(pairs: _*) {
        val dims = spark.range(0, 97).selectExpr("id as k", "concat('name-', id) as name")
        checkAnswerAndOperator(groups.join(dims, "k").groupBy("name").agg("v" -> "sum", "*" -> "count"))
      }
      injectedSince(from, "RowmatchHashJoin")
    }
  }

  test("a spark.rowmatch.memory.limit too small fails the query with an error naming the setting") {
    val e = withConf(RowmatchConf.MEMORY_LIMIT -> "16k") {
      intercept[SparkException](groups.groupBy("k").agg("v" -> "sum").collect())
    }
    assert(e.getMessage.contains(RowmatchConf.MEMORY_LIMIT), e.getMessage)
    assert(e.getMessage.contains("raise " + RowmatchConf.MEMORY_LIMIT), e.getMessage)
    awaitNoRunningTask()
    // and the session still works at the default limit
    checkAnswerAndOperator(groups.groupBy("k").agg("v" -> "sum"))
  }

  test("a malformed test-only fault setting is an error naming it") {
    val e = withConf(TestFaults.FAIL_AFTER_BATCHES -> "soon") {
      intercept[SparkException](groups.groupBy("k").agg("v" -> "sum").collect())
    }
    assert(e.getMessage.contains(TestFaults.FAIL_AFTER_BATCHES), e.getMessage)
    awaitNoRunningTask()
  }
}
