package io.rowmatch.suites

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths, StandardOpenOption}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.SparkConf
import org.apache.spark.sql.test.SharedSparkSession
import org.scalactic.source.Position
import org.scalatest.Tag

/**
 * Mixed into each subclass of a Spark suite: runs Spark's tests with the Rowmatch plugin on, skips the
 * tests listed in `excluded-tests.tsv` (see [[Exclusions]]), and proves the plugin ran: after the suite,
 * the number of prepared plans holding a Rowmatch operator ([[RowmatchPlanProbe]]) must reach
 * `minRowmatchPlans`, so a plugin that silently stopped planning fails the build.
 *
 * The plugin itself comes in through the `spark.sql.extensions` system property (SharedSparkSession's
 * `new SparkConf()` reads `spark.*` system properties; the pom sets it); this trait only adds the probe in
 * front of it, and refuses to start without Rowmatch's entry point.
 */
trait RowmatchSuiteChecks extends SharedSparkSession {

  /** Prepared plans with a Rowmatch operator a full run of this suite must produce (about half of what it produces). */
  protected def minRowmatchPlans: Long

  /** Spark's suite, the parent of the subclass: the name the exclusions file uses. */
  protected def sparkSuiteName: String = getClass.getSuperclass.getName

  private val testsRun = new AtomicInteger()

  // Called by the parent's constructor, before this trait's fields exist: only objects and the class here.
  override protected def test(testName: String, testTags: Tag*)(testFun: => Any)
      (implicit pos: Position): Unit = {
    if (Exclusions.forSuite(sparkSuiteName).contains(testName)) {
      ignore(testName, testTags: _*)(testFun)
    } else {
      super.test(testName, testTags: _*)(testFun)
    }
  }

  override protected def sparkConf: SparkConf = {
    val conf = super.sparkConf
    val extensions = conf.get("spark.sql.extensions", "").split(",").map(_.trim).filter(_.nonEmpty)
    require(extensions.contains(RowmatchSuiteChecks.RowmatchEntry),
      s"spark.sql.extensions must name ${RowmatchSuiteChecks.RowmatchEntry} (the pom sets it as a system " +
        s"property); it is '${extensions.mkString(",")}'")
    // Spark's tests exercise the operators: replace them wherever supported, paying or not.
    conf.set("spark.rowmatch.placement.enabled", "false")
    // First in the list: its post-transition rule runs last, after Rowmatch's.
    conf.set("spark.sql.extensions", (RowmatchPlanProbe.ClassName +: extensions).distinct.mkString(","))
  }

  override def beforeAll(): Unit = {
    RowmatchPlanProbe.reset()
    super.beforeAll()
  }

  // Public: SQLQueryTestSuite made these public, and a subclass may not narrow them.
  override def beforeEach(): Unit = {
    testsRun.incrementAndGet()
    super.beforeEach()
  }

  override def afterAll(): Unit = {
    try checkPluginRan() finally super.afterAll()
  }

  private def checkPluginRan(): Unit = {
    val seen = RowmatchPlanProbe.snapshot()
    val excluded = Exclusions.forSuite(sparkSuiteName)
    val stale = excluded.keySet.filterNot(testNames.contains)
    val ignored = testNames.filter(n => tags.get(n).exists(_.contains("org.scalatest.Ignore")))
    val runnable = testNames.size - ignored.size
    val full = testsRun.get() >= runnable
    val floor = if (full) minRowmatchPlans else math.min(1L, testsRun.get().toLong)
    val byKind = excluded.values.groupBy(_.kind).map { case (k, v) => s"$k=${v.size}" }.toSeq.sorted
    val line = Seq(getClass.getSimpleName, s"registered=${testNames.size}", s"run=${testsRun.get()}",
      s"excluded=${excluded.size}${if (byKind.isEmpty) "" else byKind.mkString(" (", ", ", ")")}",
      s"otherIgnored=${ignored.size - (excluded.keySet & ignored).size}",
      s"plans=${seen.plans}", s"plansWithRowmatch=${seen.plansWithRowmatch}", s"floor=$floor",
      "operators=" + seen.operators.toSeq.sortBy(-_._2).map { case (k, v) => s"$k:$v" }.mkString(","))
      .mkString("\t")
    // scalastyle:off println
    println(s"[rowmatch-suites] $line")
    // scalastyle:on println
    sys.props.get("rowmatch.suites.summary").foreach { file =>
      val p = Paths.get(file)
      Files.createDirectories(p.getParent)
      // The first suite of the run starts the file afresh.
      val mode = if (RowmatchSuiteChecks.summaryStarted.getAndSet(true)) StandardOpenOption.APPEND
        else StandardOpenOption.TRUNCATE_EXISTING
      Files.write(p, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, mode)
    }
    assert(stale.isEmpty, s"excluded-tests.tsv names tests $sparkSuiteName does not have: ${stale.mkString(", ")}")
    assert(seen.plansWithRowmatch >= floor,
      s"the Rowmatch plugin did not run enough: ${seen.plansWithRowmatch} of ${seen.plans} prepared plans held " +
        s"a Rowmatch operator, want at least $floor (is spark.sql.extensions=${RowmatchSuiteChecks.RowmatchEntry} " +
        "still set, and spark.rowmatch.enabled not false?)")
  }
}

object RowmatchSuiteChecks {
  val RowmatchEntry = "io.rowmatch.spark.RowmatchExtensions"

  private val summaryStarted = new java.util.concurrent.atomic.AtomicBoolean()
}
