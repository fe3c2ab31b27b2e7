package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/** The context of planning one expression tree: the input columns it reads and the refusal it throws. */
final class ExpressionPlanning {
  /** A refusal: the expression stays Spark's for this reason. */
  static final class Refused extends RuntimeException {
    Refused(String reason) {
      super(reason, null, false, false);
    }
  }

  private final java.util.List<Attribute> input;

  ExpressionPlanning(Seq<Attribute> input) {
    this.input = CollectionConverters.asJava(input);
  }

  Refused refuse(String reason) {
    return new Refused(reason);
  }

  Kernel child(Expression e) {
    return Expressions.planOne(e, this);
  }

  /** True while planning inside an expression that {@link SourceRowKernel} evaluates per source row. */
  private boolean insideSourceRows;

  /**
   * The one column e reads when e may be evaluated once per row of that column's source (see
   * {@link SourceRowKernel}): no enclosing expression is, and e is more than the column or a literal; else -1.
   */
  int sourceRowsColumn(Expression e) {
    if (insideSourceRows || e instanceof Attribute || e instanceof BoundReference || e.foldable()) {
      return -1;
    }
    return DictionaryConjunct.onlyColumn(e, input);
  }

  /** Plans a kernel none of whose inner expressions is evaluated per source row on its own (the kernel is). */
  Kernel planInsideSourceRows(java.util.function.Supplier<Kernel> plan) {
    insideSourceRows = true;
    try {
      return plan.get();
    } finally {
      insideSourceRows = false;
    }
  }

  /** The ordinal of an input attribute, or a refusal. */
  int ordinal(Attribute a) {
    for (int i = 0; i < input.size(); i++) {
      if (input.get(i).exprId().equals(a.exprId())) {
        return i;
      }
    }
    throw refuse(a.sql() + " is not an input column");
  }

  /** Refuses types without a vector kind, and strings whose collation does not compare bytes. */
  DataType checkType(DataType t, Expression e) {
    if (Vec.kindOf(t) < 0) {
      throw refuse("type " + t.simpleString() + " is not evaluated columnar: " + e.sql());
    }
    if (t instanceof StringType s && !s.supportsBinaryEquality()) {
      throw refuse("collation " + s.collationName() + " does not compare bytes: " + e.sql());
    }
    return t;
  }

  /** The eval mode (LEGACY, ANSI) of an expression, refusing TRY. */
  boolean ansi(String evalMode, Expression e) {
    switch (evalMode) {
      case "ANSI":
        return true;
      case "LEGACY":
        return false;
      default:
        throw refuse("eval mode " + evalMode + " is not evaluated columnar: " + e.sql());
    }
  }
}
