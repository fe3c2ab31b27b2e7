package io.rowmatch.tpch

import java.nio.charset.StandardCharsets

import scala.io.Source

/**
 * The TPC-H Rowmatch operator counts pinned per join strategy and query (`rowmatch-operators.tsv` in the test
 * resources, as TpchRowmatchSuite writes them to target/tpch-rowmatch-operators.tsv): a count, or a range "a-b" of
 * the counts AQE's varying order of stages gives. Read by TpchRowmatchSuite and the standalone-cluster suite.
 */
object OperatorPins {
  val Resource = "io/rowmatch/tpch/rowmatch-operators.tsv"

  /** (strategy name, query number) -> the counts allowed; empty when the file is not on the class path. */
  lazy val all: Map[(String, Int), Range] = {
    val in = getClass.getClassLoader.getResourceAsStream(Resource)
    if (in == null) Map.empty
    else {
      val source = Source.fromInputStream(in, StandardCharsets.UTF_8.name())
      try {
        source.getLines().map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#") && !l.startsWith("strategy"))
          .map { line =>
            val Array(strategy, query, count) = line.split("\t")
            val bounds = count.split("-")
            (strategy, query.stripPrefix("q").toInt) -> (bounds.head.toInt to bounds.last.toInt)
          }.toMap
      } finally source.close()
    }
  }

  /** How a pin reads in a message: "45" or "45 to 46". */
  def describe(r: Range): String = if (r.size == 1) r.head.toString else s"${r.head} to ${r.last}"
}
