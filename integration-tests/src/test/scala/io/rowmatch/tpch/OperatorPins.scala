package io.rowmatch.tpch

import java.nio.charset.StandardCharsets

import scala.io.Source

/**
 * Rowmatch operator counts pinned per query in a test resource (`rowmatch-operators.tsv`, as the TPC-H and TPC-DS
 * suites write them to target/): tab-separated key fields, then a count, or a range "a-b" of the counts AQE's
 * varying order of stages gives (a negative count: both engines fail). `#` lines and the header are skipped.
 */
object OperatorPins {
  val Resource = "io/rowmatch/tpch/rowmatch-operators.tsv"

  /** Each pin of a resource: its key fields and the counts allowed; empty when the resource is not there. */
  def read(resource: String): Seq[(Seq[String], Range)] = {
    val in = getClass.getClassLoader.getResourceAsStream(resource)
    if (in == null) Seq.empty
    else {
      val source = Source.fromInputStream(in, StandardCharsets.UTF_8.name())
      try {
        source.getLines().map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#")).drop(1).map { line =>
          val fields = line.split("\t").toSeq
          val bounds = fields.last.split("(?<=\\d)-")
          fields.init -> (bounds.head.toInt to bounds.last.toInt)
        }.toList
      } finally source.close()
    }
  }

  /** The TPC-H pins: (strategy name, query number) -> the counts allowed. */
  lazy val all: Map[(String, Int), Range] =
    read(Resource).map { case (Seq(strategy, query), counts) => (strategy, query.stripPrefix("q").toInt) -> counts }
      .toMap

  /** How a pin reads in a message: "45" or "45 to 46". */
  def describe(r: Range): String = if (r.size == 1) r.head.toString else s"${r.head} to ${r.last}"
}
