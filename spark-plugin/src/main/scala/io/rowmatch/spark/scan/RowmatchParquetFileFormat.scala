package io.rowmatch.spark.scan

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/**
 * Spark's Parquet format, whose vectorized batches have their data pages decoded by Rowmatch
 * ([[ParquetBatches]]): everything else (splits, footers, pushed filters, schema clipping, partition and
 * missing columns, the vectors and their types) is Spark's own. A subclass, so every place Spark asks "is this
 * Parquet" still says yes.
 */
class RowmatchParquetFileFormat extends ParquetFileFormat {
  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val spark = super.buildReaderWithPartitionValues(
      sparkSession, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
    val batches = SQLConf.get.parquetVectorizedReaderEnabled &&
      options.get(FileFormat.OPTION_RETURNING_BATCH).contains("true")
    if (!batches) spark else (file: PartitionedFile) => ParquetBatches.over(spark(file))
  }

  override def toString: String = "Parquet"
  override def hashCode(): Int = classOf[ParquetFileFormat].hashCode()
}

object RowmatchParquetFileFormat {
  /**
   * An option of the scan's relation that marks it as decoded by Rowmatch. Spark's Parquet format is equal to
   * any other, so without a difference the plan's transformation would keep the original scan; with it, scans
   * still match each other for exchange reuse.
   */
  val Marker: (String, String) = "rowmatch.parquetDecoder" -> "true"

  /** Spark's columnar Parquet scans in `plan` decoded by Rowmatch. */
  def decodePages(plan: SparkPlan): SparkPlan = plan.transformUp {
    case scan: FileSourceScanExec if scan.relation.fileFormat.getClass == classOf[ParquetFileFormat] =>
      val relation = scan.relation
      scan.copy(relation = relation.copy(fileFormat = new RowmatchParquetFileFormat,
        options = relation.options + Marker)(relation.sparkSession))
  }
}
