package io.rowmatch.spark

import java.nio.file.{Files, Path}
import java.util.jar.JarFile
import scala.jdk.CollectionConverters._
import scala.util.Using

import org.scalatest.funsuite.AnyFunSuite

import io.rowmatch.cluster.ShadedJar
import io.rowmatch.spark.SparkLineCheckMain.{query, withSession, Extensions}

/**
 * A Rowmatch jar on a Spark of another line (a 4.1 jar on Spark 4.2, or the reverse): the driver's setup check
 * turns Rowmatch off for the session with one ERROR naming both versions and the jar to use, and every query runs
 * as vanilla Spark, right. Twice: this build's own jar told by the test-only setting
 * spark.rowmatch.test.builtForSparkLine that it was built for the other line; and the real shaded jar of the other
 * line, on the class path of a child JVM running this Spark.
 */
class SparkLineCheckSuite extends AnyFunSuite {
  private val build = RowmatchBuild.current()
  private val running = org.apache.spark.SPARK_VERSION
  private val otherLine = build.supportedLines.asScala.find(_ != build.sparkLine).getOrElse("4.2")

  private def checkErrors(logs: Seq[String]): Seq[String] =
    logs.filter(l => l.contains("ERROR") && l.contains("RowmatchSetupCheck"))

  /** The one ERROR the setup check logs for a jar built for `jarLine` on this Spark. */
  private def assertOneLineError(logs: Seq[String], jarLine: String): Unit = {
    val errors = checkErrors(logs)
    assert(errors.size == 1, s"want exactly one ERROR from the setup check:\n${logs.mkString("\n")}")
    val e = errors.head
    assert(e.contains(s"built for Spark $jarLine (rowmatch-spark-plugin-spark${jarLine}_2.13-"), e)
    assert(e.contains(s"the application runs Spark $running"), e)
    assert(e.contains("Rowmatch is OFF for this session"), e)
    assert(e.contains(s"Use ${build.shadedJarName()} (built with -Pspark-${build.sparkLine})"), e)
  }

  test("a jar of another Spark line: one ERROR naming both versions and the jar to use; no Rowmatch; vanilla rows") {
    val (vanilla, vanillaPlan) = withSession(Nil)(query)
    assert(!vanillaPlan.contains("Rowmatch"), vanillaPlan)
    assert(vanilla.nonEmpty)

    // Control: the same query with this jar on its own line runs Rowmatch operators, with the same rows.
    val ((own, ownPlan), ownLogs) = LogCapture {
      withSession(Extensions :+ ("spark.rowmatch.test.builtForSparkLine" -> build.sparkLine))(query)
    }
    assert(ownPlan.contains("Rowmatch"), ownPlan)
    assert(own == vanilla)
    assert(checkErrors(ownLogs).isEmpty, ownLogs.mkString("\n"))

    val ((other, otherPlan), logs) = LogCapture {
      withSession(Extensions :+ ("spark.rowmatch.test.builtForSparkLine" -> otherLine))(query)
    }
    assert(!otherPlan.contains("Rowmatch"), otherPlan)
    assert(other == vanilla)
    assertOneLineError(logs, otherLine)
  }

  /**
   * The other line's jar sits next to this line's in spark-plugin/target when both were built (CI builds 4.1, then
   * 4.2, and sets -Drowmatch.test.otherLineJar.required=true there); otherwise the test is canceled, saying how
   * to build it.
   */
  test("the real shaded jar of the other Spark line on this Spark: the same ERROR, no Rowmatch, vanilla rows") {
    val jar = ShadedJar.moduleDir("spark-plugin").resolve("target").resolve(build.forLine(otherLine).shadedJarName())
    if (!Files.isRegularFile(jar)) {
      val why = s"$jar is missing: build it with `mvn -B -ntp -Pspark-$otherLine -pl spark-plugin -am package -DskipTests`"
      if (java.lang.Boolean.getBoolean("rowmatch.test.otherLineJar.required")) fail(why) else cancel(why)
    }
    val builtFor = Using.resource(new JarFile(jar.toFile)) { j =>
      val p = new java.util.Properties()
      Using.resource(j.getInputStream(j.getEntry("io/rowmatch/spark/" + RowmatchBuild.RESOURCE)))(p.load)
      p.getProperty("spark.line")
    }
    assert(builtFor == otherLine, s"$jar says it was built for Spark $builtFor")

    // This JVM's class path without this build's Rowmatch (the plugin's and the core's classes), plus that jar.
    val classPath = ChildJvm.testClassPath.filterNot(e => holdsRowmatchPlugin(Path.of(e))) :+ jar.toString
    val child = ChildJvm.run(SparkLineCheckMain.getClass.getName.stripSuffix("$"), Seq("-Xmx1g"), classPath, 5)
    val lines = child.lines
    assert(child.finished && child.exitCode == 0, s"the child JVM failed (exit ${child.exitCode}):\n${child.tail}")
    def line(prefix: String): String = lines.find(_.startsWith(prefix + " ")).map(_.drop(prefix.length + 1))
      .getOrElse(fail(s"no $prefix line:\n${child.tail}"))
    assert(line("EXTENSIONS_FROM").endsWith(jar.getFileName.toString), line("EXTENSIONS_FROM"))
    assert(line("SPARK") == running)
    assert(line("PLAN_HAS_ROWMATCH") == "false", child.output)
    assert(line("WITH_JAR") == line("VANILLA"))
    // The child's vanilla rows are this JVM's vanilla rows (the query ran, and is the one checked above).
    assert(line("VANILLA") == withSession(Nil)(query)._1.mkString(";"))
    // The other jar names this line's jar by the same version and Scala, so the message is the same.
    assertOneLineError(lines, otherLine)
  }

  /** A class-path entry holding this build's Rowmatch plugin or core (a classes folder or a jar). */
  private def holdsRowmatchPlugin(entry: Path): Boolean = {
    val names = Seq("io/rowmatch/spark/RowmatchExtensions.class", "io/rowmatch/core/MultiColumnComparator.class")
    if (Files.isDirectory(entry)) names.exists(n => Files.exists(entry.resolve(n)))
    else if (Files.isRegularFile(entry) && entry.toString.endsWith(".jar"))
      Using.resource(new JarFile(entry.toFile))(j => names.exists(n => j.getEntry(n) != null))
    else false
  }
}
