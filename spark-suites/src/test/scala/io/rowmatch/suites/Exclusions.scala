package io.rowmatch.suites

import java.io.{BufferedReader, InputStreamReader}
import java.nio.charset.StandardCharsets

import scala.collection.mutable

/**
 * The one list of Spark tests this module does not run: `excluded-tests.tsv` (test resources), one test a
 * line, `suite<TAB>test name<TAB>kind<TAB>reason`. The suite is Spark's class name (the parent of our
 * subclass), the name is the test's exact registered name. Only two kinds qualify:
 *   - `operator-class`: the test asserts Spark's own operator classes or codegen, which Rowmatch replaces by
 *     design (it counts SortMergeJoinExec nodes, expects a fast hash map in generated code, ...);
 *   - `not-implemented`: the test exercises a Spark mechanism Rowmatch does not implement yet (the reason
 *     names the issue).
 * A wrong answer or an exception is never a reason: those are bugs.
 *
 * It is an object, not a field of the suites: Spark's suites register their tests in their constructors,
 * before a subclass's fields exist.
 */
object Exclusions {
  val Kinds: Set[String] = Set("operator-class", "not-implemented")

  final case class Exclusion(suite: String, test: String, kind: String, reason: String)

  lazy val all: Seq[Exclusion] = load()

  private lazy val bySuite: Map[String, Map[String, Exclusion]] =
    all.groupBy(_.suite).map { case (s, es) => s -> es.map(e => e.test -> e).toMap }

  def forSuite(suite: String): Map[String, Exclusion] = bySuite.getOrElse(suite, Map.empty)

  private def load(): Seq[Exclusion] = {
    val in = getClass.getResourceAsStream("/excluded-tests.tsv")
    require(in != null, "excluded-tests.tsv is not on the test classpath")
    val reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
    val out = mutable.ArrayBuffer[Exclusion]()
    try {
      var line = reader.readLine()
      var n = 1
      while (line != null) {
        if (line.trim.nonEmpty && !line.startsWith("#")) {
          val f = line.split("\t", -1)
          require(f.length == 4 && f.forall(_.trim.nonEmpty),
            s"excluded-tests.tsv line $n: want suite, test, kind, reason separated by tabs: $line")
          require(Kinds.contains(f(2)), s"excluded-tests.tsv line $n: kind '${f(2)}' is not one of $Kinds")
          out += Exclusion(f(0), f(1), f(2), f(3))
        }
        line = reader.readLine()
        n += 1
      }
    } finally reader.close()
    val dups = out.groupBy(e => (e.suite, e.test)).collect { case (k, v) if v.size > 1 => k }
    require(dups.isEmpty, s"excluded-tests.tsv lists these tests twice: ${dups.mkString(", ")}")
    out.toSeq
  }
}
