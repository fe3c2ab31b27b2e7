package io.rowmatch.spark.expression;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.DeferredGatherVector;

/**
 * The entry to the columnar expression kernels: whether a list of Spark expressions over given input columns is
 * evaluated columnar (or why not), and their compiled form, made where the batches are (kernels hold per-batch
 * caches, so one compiled form per partition).
 */
public final class ColumnarExpressions {
  private final Kernel[] kernels;
  /**
   * Per expression, as a filter conjunct, the group of conjuncts over its column decided per dictionary entry with it
   * (else null).
   */
  private final DictionaryConjunct[] byDictionary;
  /** For each expression, the input ordinal it only reads (a column passed through as is), or -1. */
  private final int[] passThrough;
  private final DataType[] inputTypes;
  /** Rows whose conjunct was decided through their dictionary entry (a conjunct's rows each time; for tests). */
  private long rowsDecidedByDictionary;
  /** Per input column, its reader of Spark's own column vectors (made on first use; dictionary caches). */
  private SparkVecs[] sparkReaders;
  /** Per input column, its reader of a scan's column not yet in Arrow (dictionary caches); made on first use. */
  private SparkVecs[] columnReaders;
  /** The open batch's numeric arrays, handed to the next batch when it is opened (one batch open at a time). */
  private final VecScratch scratch = new VecScratch();

  private ColumnarExpressions(Kernel[] kernels, DictionaryConjunct[] byDictionary, int[] passThrough,
      DataType[] inputTypes) {
    this.kernels = kernels;
    this.byDictionary = byDictionary;
    this.passThrough = passThrough;
    this.inputTypes = inputTypes;
  }

  /** Why these expressions are not evaluated columnar over {@code input}, or null when they all are. */
  public static String unsupported(Seq<? extends Expression> expressions, Seq<Attribute> input) {
    try {
      compile(expressions, input);
      return null;
    } catch (ExpressionPlanning.Refused r) {
      return r.getMessage();
    }
  }

  /** The compiled expressions; IllegalArgumentException with the reason when one is not supported. */
  public static ColumnarExpressions compile(Seq<? extends Expression> expressions, Seq<Attribute> input) {
    ExpressionPlanning p = new ExpressionPlanning(input);
    List<? extends Expression> list = CollectionConverters.asJava(expressions);
    Kernel[] kernels = new Kernel[list.size()];
    int[] pass = new int[list.size()];
    List<Attribute> in = CollectionConverters.asJava(input);
    for (int i = 0; i < kernels.length; i++) {
      Kernel k = Expressions.planOne(list.get(i), p);
      kernels[i] = k;
      Expression e = list.get(i) instanceof Alias a ? a.child() : list.get(i);
      pass[i] = k instanceof LeafKernels.ColumnKernel c && e.dataType().sameType(k.type) ? c.ordinal : -1;
    }
    DataType[] types = new DataType[in.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = in.get(i).dataType();
    }
    return new ColumnarExpressions(kernels, DictionaryConjunct.grouped(list, kernels, in), pass, types);
  }

  /**
   * Expressions already bound to their input's columns (BoundReference), over columns of the given types; null
   * when one is not supported (the caller keeps Spark's evaluation).
   */
  public static ColumnarExpressions compileBound(Expression[] bound, DataType[] inputTypes) {
    ExpressionPlanning p = new ExpressionPlanning(CollectionConverters.asScala(List.<Attribute>of()).toSeq());
    Kernel[] kernels = new Kernel[bound.length];
    int[] pass = new int[bound.length];
    try {
      for (int i = 0; i < bound.length; i++) {
        kernels[i] = Expressions.planOne(bound[i], p);
        pass[i] = -1;
      }
    } catch (ExpressionPlanning.Refused r) {
      return null;
    }
    return new ColumnarExpressions(kernels, DictionaryConjunct.grouped(List.of(bound), kernels, List.of()), pass,
        inputTypes.clone());
  }

  /** A batch given as its Arrow columns. */
  public Object open(ValueVector[] columns, int rows) {
    scratch.reset();
    return new EvalBatch(columns.clone(), inputTypes, rows, scratch);
  }

  /**
   * A batch whose row i is, in column c, Arrow row {@code rowsOf[c][i]} of {@code columns[c]} (a join's matched
   * pairs over the probe and build columns); the arrays are read, not kept past the evaluation.
   */
  public Object openRows(ValueVector[] columns, int[][] rowsOf, int rows) {
    scratch.reset();
    return new EvalBatch(columns, inputTypes, rowsOf, null, null, null, rows, scratch);
  }

  public int size() {
    return kernels.length;
  }

  /** The input column expression i passes through unchanged, or -1 when it computes a new one. */
  public int passThrough(int i) {
    return passThrough[i];
  }

  /**
   * The batch being evaluated; its columns are read into the kernels' form once each, and only those the
   * expressions read: a deferred column (a broadcast join's) is read from its source at its rows, never gathered,
   * and a scan's column not yet in Arrow is copied only when an expression reads it.
   */
  public Object open(ColumnarBatch batch) {
    ValueVector[] columns = new ValueVector[batch.numCols()];
    int[][] rowsOf = null;
    boolean[] deferred = null;
    ConvertOnReadColumn[] unread = null;
    for (int c = 0; c < columns.length; c++) {
      if (batch.column(c) instanceof ConvertOnReadColumn u && !u.isConverted()) {
        if (unread == null) {
          unread = new ConvertOnReadColumn[columns.length];
        }
        unread[c] = u; // copied into Arrow only if an expression reads it
        continue;
      }
      if (batch.column(c) instanceof DeferredGatherVector d && !d.hasNullRows()) {
        if (rowsOf == null) {
          rowsOf = new int[columns.length][];
          deferred = new boolean[columns.length];
        }
        columns[c] = d.source();
        rowsOf[c] = d.rows();
        deferred[c] = true;
        continue;
      }
      if (!(batch.column(c) instanceof ArrowColumnVector v)) {
        throw new IllegalStateException("columnar expressions read Arrow batches; column " + c + " is "
            + batch.column(c).getClass().getName());
      }
      columns[c] = v.getValueVector();
    }
    scratch.reset();
    SparkVecs[] readers = unread == null ? null : columnReaders();
    return new EvalBatch(columns, inputTypes, rowsOf, deferred, unread, readers, batch.numRows(), scratch);
  }

  /**
   * The rows where conjuncts 0..size-1 all hold (bitmap words), each conjunct evaluated only where the earlier
   * ones held, as Spark's generated filter does (on a gathered batch of those rows when they are few), or once per
   * entry of its column's dictionary, together with the other conjuncts over that column ({@link DictionaryConjunct}).
   */
  public long[] select(Object batch) {
    EvalBatch in = (EvalBatch) batch;
    long[] active = Vec.allValid(in.rows);
    boolean[] decided = null; // conjuncts already decided with an earlier one over their column's dictionary
    for (int i = 0; i < kernels.length; i++) {
      if (decided != null && decided[i]) {
        continue;
      }
      DictionaryConjunct group = byDictionary[i];
      long[] t = group == null || !group.decidedAt(i) ? null : group.holds(in, active);
      if (t != null) {
        rowsDecidedByDictionary += (long) in.rows * group.size();
        for (int j = i + 1; j < kernels.length; j++) {
          if (byDictionary[j] == group) {
            decided = decided == null ? new boolean[kernels.length] : decided;
            decided[j] = true;
          }
        }
      } else {
        t = LogicKernels.trues(Selective.eval(kernels[i], in, active));
      }
      long any = 0;
      for (int w = 0; w < active.length; w++) {
        active[w] &= t[w];
        any |= active[w];
      }
      if (any == 0) {
        break; // no row left: Spark evaluates no later conjunct either
      }
    }
    return active;
  }

  /** Rows in this JVM whose expression of a deferred column took its source row's answer ({@link SourceRowKernel}). */
  public static long rowsDecidedBySourceRow() {
    return SourceRowKernel.rowsDecided();
  }

  /** How many rows {@link #select} decided through a dictionary entry, summed over conjuncts (for tests). */
  public long rowsDecidedByDictionary() {
    return rowsDecidedByDictionary;
  }

  /** How many groups of conjuncts {@link #select} may decide per dictionary entry, each in one pass (for tests). */
  public int dictionaryGroups() {
    return (int) java.util.Arrays.stream(byDictionary).filter(java.util.Objects::nonNull).distinct().count();
  }

  /** Per input column its reader of Spark's vectors, null for a type read only from Arrow (made once). */
  private SparkVecs[] columnReaders() {
    if (columnReaders == null) {
      SparkVecs[] readers = new SparkVecs[inputTypes.length];
      for (int c = 0; c < inputTypes.length; c++) {
        readers[c] = SparkVecs.readable(inputTypes[c]) ? new SparkVecs(inputTypes[c]) : null;
      }
      columnReaders = readers;
    }
    return columnReaders;
  }

  /** Whether every one of these columns can be evaluated from Spark's own column vectors ({@link #openSpark}). */
  public static boolean readsSparkColumns(Seq<Attribute> input) {
    for (Attribute a : CollectionConverters.asJava(input)) {
      if (!SparkVecs.readable(a.dataType())) {
        return false;
      }
    }
    return true;
  }

  /**
   * A Spark batch that is not Arrow (a vectorized scan's), its columns read straight from Spark's vectors, or
   * null when a column's type is not the planned one (the caller copies the batch into Arrow instead).
   */
  public Object openSpark(ColumnarBatch batch) {
    if (batch.numCols() != inputTypes.length) {
      return null;
    }
    if (sparkReaders == null) {
      SparkVecs[] readers = new SparkVecs[inputTypes.length];
      for (int c = 0; c < inputTypes.length; c++) {
        if (!SparkVecs.readable(inputTypes[c])) {
          return null;
        }
        readers[c] = new SparkVecs(inputTypes[c]);
      }
      sparkReaders = readers;
    }
    org.apache.spark.sql.vectorized.ColumnVector[] columns =
        new org.apache.spark.sql.vectorized.ColumnVector[inputTypes.length];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = batch.column(c);
      if (columns[c] instanceof ArrowColumnVector || !columns[c].dataType().sameType(inputTypes[c])) {
        return null;
      }
    }
    scratch.reset();
    return new EvalBatch(columns, sparkReaders, inputTypes, batch.numRows(), scratch);
  }

  /**
   * Input column c at rows {@code rows[0..count)} of the batch (ascending), as a new Arrow vector from
   * {@code allocator}: a filter's output over a batch it read with {@link #openSpark}.
   */
  public org.apache.arrow.vector.FieldVector selectedColumn(Object batch, int c, int[] rows, int count, String name,
      boolean nullable, String timeZone, org.apache.arrow.memory.BufferAllocator allocator) {
    Vec v = ((EvalBatch) batch).columnAt(c, rows, count);
    return ArrowVecs.write(v, name, nullable, timeZone, allocator);
  }

  /** Expression i over the batch, as a new Arrow vector from {@code allocator}. */
  public org.apache.arrow.vector.FieldVector evaluate(Object batch, int i, String name, boolean nullable,
      String timeZone, org.apache.arrow.memory.BufferAllocator allocator) {
    Vec v = kernels[i].eval((EvalBatch) batch, null);
    return ArrowVecs.write(v, name, nullable, timeZone, allocator);
  }

  /** The registered expression classes (for docs and tests). */
  public static List<String> supportedClasses() {
    List<String> out = new ArrayList<>();
    for (SupportedExpression s : Expressions.all()) {
      out.add(s.sparkClass().getSimpleName());
    }
    return out;
  }
}
