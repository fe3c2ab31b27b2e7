package io.rowmatch.tpch

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.rowmatch.bench.tpch.{AnswerComparator, Engine, QueryRun, TpchDataGenerator, TpchDataset, TpchQuery}

/**
 * All 22 TPC-H queries at SF 0.01 under each forced join strategy, every answer checked against
 * trino-tpch's reference answers (an external oracle), with the Rowmatch operators of each plan counted.
 * One SparkSession per suite (local[2], 2 shuffle partitions, no UI) keeps it fast for CI.
 *
 * The data, queries, dialect edits and answer comparison are the benchmark runner's (module bench), so
 * the suite and the runner check answers the same way.
 */
abstract class TpchSuiteBase(engine: Engine) extends AnyFunSuite with BeforeAndAfterAll {
  protected var spark: SparkSession = _

  /** Rowmatch operators counted per (strategy, query), written to target/ for the report and pinning. */
  private val counted = scala.collection.mutable.LinkedHashMap[(String, Int), Int]()

  /** Whether this suite can run; when it cannot, a message for cancel (not yet expected) or fail. */
  protected def readiness(): Either[String, Unit] = Right(())

  /** Checks particular to the engine, on every plan. */
  protected def checkOperators(strategy: JoinStrategy, query: TpchQuery, run: QueryRun): Unit

  override def beforeAll(): Unit = {
    super.beforeAll()
    if (readiness().isRight) {
      spark = TpchSuiteBase.session(engine)
      TpchTestData.dataset(spark).registerViews(spark)
    }
  }

  override def afterAll(): Unit = {
    try {
      if (spark != null) {
        spark.stop()
        SparkSession.clearActiveSession()
        SparkSession.clearDefaultSession()
      }
      if (counted.nonEmpty) {
        val lines = counted.map { case ((strategy, q), n) => s"$strategy\tq$q\t$n" }
        val file = Path.of("target", s"tpch-${engine.id()}-operators.tsv")
        Files.createDirectories(file.getParent)
        Files.writeString(file, ("strategy\tquery\trowmatch_operators" +: lines.toSeq).mkString("", "\n", "\n"))
      }
    } finally {
      super.afterAll()
    }
  }

  for (strategy <- JoinStrategy.All; number <- 1 to TpchQuery.COUNT) {
    test(s"${strategy.name} q$number matches the reference answer") {
      readiness() match {
        case Left(message) => handleNotReady(message)
        case Right(()) =>
      }
      val query = TpchQuery.load(number)
      strategy.settings.foreach { case (key, value) => spark.conf.set(key, value) }
      val run = QueryRun.execute(spark, query, "Rowmatch")
      val difference = AnswerComparator.compare(query, query.reference(), run.answer())
      assert(difference.isEmpty, s"${engine.id()} ${strategy.name} ${query.name()}: ${difference.orElse("")}")
      val operators = run.operators().asScala
      for (other <- strategy.forbidden) {
        assert(!operators.contains(other),
          s"${strategy.name} must not plan $other, but ${query.name()} ran ${run.operators()}")
      }
      counted((strategy.name, number)) = run.inspection().operatorCount()
      checkOperators(strategy, query, run)
    }
  }

  /** Called when readiness() is Left: cancel (shown as canceled, never as passed) or fail. */
  protected def handleNotReady(message: String): Unit = cancel(message)
}

object TpchSuiteBase {
  def session(engine: Engine): SparkSession = {
    engine.checkAvailable()
    val builder = SparkSession.builder()
      .master("local[2]")
      .appName(s"tpch-suite-${engine.id()}")
      .config("spark.ui.enabled", "false")
      .config("spark.ui.showConsoleProgress", "false")
      .config("spark.sql.shuffle.partitions", "2")
    engine.settings().asScala.foreach { case (k, v) => builder.config(k, v) }
    builder.getOrCreate()
  }
}

/** SF 0.01 data, generated into target/ once per test run (the first suite that asks), then reused. */
object TpchTestData {
  private var generated: TpchDataset = _

  def dataset(spark: SparkSession): TpchDataset = synchronized {
    if (generated == null) {
      val root = Path.of("target", "tpch-data")
      // Once per run: data from an earlier build must not hide a change of the generator.
      val dir = root.resolve(TpchDataset.directoryName(0.01))
      Files.deleteIfExists(dir.resolve(TpchDataGenerator.MARKER)) // without its marker, the data is regenerated
      generated = TpchDataGenerator.ensure(spark, root, 0.01, System.out)
    }
    generated
  }
}
