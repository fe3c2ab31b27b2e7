package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan, UnaryExecNode, WholeStageCodegenExec}
import org.apache.spark.sql.types._

/**
 * The last operator of a Spark code-generated stage whose rows RowmatchToArrow converts: it writes each row into
 * Arrow while the row is current ([[ArrowRowSink]]) and outputs one row per batch. Spark's stage would instead
 * buffer its rows for the consumer, copying each one when an operator in it makes several rows per input row (a
 * join). Never in a plan: RowmatchToArrow builds the stage `WholeStageCodegen(ArrowSink(child))` from the
 * stage Spark planned when it runs, so plans and their strings do not change.
 */
case class ArrowSinkExec(child: SparkPlan, rowSchema: StructType, settings: ArrowSettings)
  extends UnaryExecNode with CodegenSupport {

  override def nodeName: String = "RowmatchArrowSink"

  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  // Each row is written before the next one is made.
  override def needCopyResult: Boolean = false

  override def inputRDDs(): Seq[RDD[InternalRow]] = child.asInstanceOf[CodegenSupport].inputRDDs()

  private var sink: String = _

  /** The put of each column when every column is flat (written from the stage's variables), else None. */
  private lazy val puts: Option[Seq[String]] = {
    val each = output.map(a => ArrowSinkExec.put(a.dataType))
    if (each.forall(_.isDefined)) Some(each.flatten) else None
  }

  // The puts read every column's variable; a row is only made for the row path.
  override def usedInputs: AttributeSet = if (puts.isDefined) outputSet else AttributeSet.empty

  override protected def doProduce(ctx: CodegenContext): String = {
    val factory = ctx.addReferenceObj("arrowSinkFactory", new ArrowRowSink.Factory(rowSchema, settings))
    val sinkClass = classOf[ArrowRowSink].getName
    sink = ctx.addMutableState(sinkClass, "arrowSink", v => s"$v = $factory.open();", forceInline = true)
    val last = ctx.freshName("lastBatch")
    // The child's loop returns at its stop checks once a batch is appended; the code after it runs only once its
    // input has ended.
    s"""
       |if (!$sink.resume()) return;
       |${child.asInstanceOf[CodegenSupport].produce(ctx, this)}
       |InternalRow $last = $sink.finishInput();
       |if ($last != null) append($last);
     """.stripMargin
  }

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val full = ctx.freshName("fullBatch")
    puts match {
      case Some(methods) =>
        val w = ctx.freshName("arrowWriter")
        val columns = methods.zip(input).zipWithIndex.map {
          case (("putNull", _), c) => s"$w.putNull($c);"
          case ((method, ev), c) => s"if (${ev.isNull}) $w.putNull($c); else $w.$method($c, ${ev.value});"
        }
        s"""
           |{
           |  ${classOf[ArrowRowWriter].getName} $w = $sink.writer();
           |  ${columns.mkString("\n")}
           |  InternalRow $full = $sink.endRow();
           |  if ($full != null) append($full);
           |}
         """.stripMargin
      case None =>
        s"""
           |{
           |  ${row.code}
           |  InternalRow $full = $sink.write(${row.value});
           |  if ($full != null) append($full);
           |}
         """.stripMargin
    }
  }

  /** Spark's fallback when the stage's code is too large to compile well: the same batches, from rows. */
  override protected def doExecute(): RDD[InternalRow] = {
    val (s, sch) = (settings, rowSchema)
    child.execute().mapPartitions { rows =>
      ArrowTransitions.fromRows(rows.asJava, sch, s, TaskContext.get()).asScala
        .map(b => ArrowRowSink.BatchRow.of(b))
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): ArrowSinkExec = copy(child = newChild)
}

object ArrowSinkExec {
  /** The ArrowRowWriter put of a flat column's value (the Java type Spark's generated code holds it in). */
  private def put(t: DataType): Option[String] = t match {
    case NullType => Some("putNull")
    case BooleanType => Some("putBoolean")
    case ByteType => Some("putByte")
    case ShortType => Some("putShort")
    case IntegerType | DateType => Some("putInt")
    case LongType | TimestampType | TimestampNTZType => Some("putLong")
    case FloatType => Some("putFloat")
    case DoubleType => Some("putDouble")
    case _: DecimalType => Some("putDecimal")
    case _: StringType => Some("putUTF8String")
    case BinaryType => Some("putBinary")
    case _ => None
  }

  /**
   * The stage that writes the rows of Spark's code-generated stage `stage` into Arrow batches (one row per
   * batch), or None when its code does not compile (RowmatchToArrow then converts the stage's rows).
   */
  def over(stage: WholeStageCodegenExec, schema: StructType, settings: ArrowSettings): Option[WholeStageCodegenExec] = {
    val sinkStage = WholeStageCodegenExec(ArrowSinkExec(stage.child, schema, settings))(stage.codegenStageId)
    try {
      val (_, source) = sinkStage.doCodeGen()
      CodeGenerator.compile(source) // cached: the stage's execution compiles the same source again for free
      Some(sinkStage)
    } catch {
      case NonFatal(_) => None
    }
  }
}
