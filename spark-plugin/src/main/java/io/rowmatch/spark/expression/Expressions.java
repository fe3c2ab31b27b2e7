package io.rowmatch.spark.expression;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.Abs;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BRound;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.DateAdd;
import org.apache.spark.sql.catalyst.expressions.DateSub;
import org.apache.spark.sql.catalyst.expressions.Divide;
import org.apache.spark.sql.catalyst.expressions.EndsWith;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Length;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.MakeDecimal;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.Pmod;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.catalyst.expressions.Round;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.catalyst.expressions.UnscaledValue;
import org.apache.spark.sql.catalyst.expressions.Year;
import org.apache.spark.sql.execution.ScalarSubquery;

/**
 * The registry of Spark expressions the columnar kernels evaluate, by Spark's expression class (exact class: a
 * subclass may change semantics). Adding one: its planner and kernel, one entry below, and its tests.
 */
final class Expressions {
  private Expressions() {}

  private static final List<SupportedExpression> ALL = List.of(
      SupportedExpression.of(Literal.class, LeafKernels::literal),
      SupportedExpression.of(ScalarSubquery.class, LeafKernels::scalarSubquery),
      SupportedExpression.of(BoundReference.class, LeafKernels::bound),
      SupportedExpression.of(AttributeReference.class, LeafKernels::attribute),
      SupportedExpression.of(EqualTo.class, CompareKernels::plan),
      SupportedExpression.of(EqualNullSafe.class, CompareKernels::plan),
      SupportedExpression.of(LessThan.class, CompareKernels::plan),
      SupportedExpression.of(LessThanOrEqual.class, CompareKernels::plan),
      SupportedExpression.of(GreaterThan.class, CompareKernels::plan),
      SupportedExpression.of(GreaterThanOrEqual.class, CompareKernels::plan),
      SupportedExpression.of(In.class, CompareKernels::in),
      SupportedExpression.of(InSet.class, CompareKernels::inSet),
      SupportedExpression.of(And.class, LogicKernels::and),
      SupportedExpression.of(Or.class, LogicKernels::or),
      SupportedExpression.of(Not.class, LogicKernels::not),
      SupportedExpression.of(IsNull.class, LogicKernels::isNull),
      SupportedExpression.of(IsNotNull.class, LogicKernels::isNotNull),
      SupportedExpression.of(Add.class, ArithmeticKernels::binary),
      SupportedExpression.of(Subtract.class, ArithmeticKernels::binary),
      SupportedExpression.of(Multiply.class, ArithmeticKernels::binary),
      SupportedExpression.of(Divide.class, ArithmeticKernels::binary),
      SupportedExpression.of(UnaryMinus.class, ArithmeticKernels::negation),
      SupportedExpression.of(Abs.class, ArithmeticKernels::negation),
      SupportedExpression.of(Remainder.class, ArithmeticKernels::binary),
      SupportedExpression.of(Pmod.class, ArithmeticKernels::binary),
      SupportedExpression.of(Round.class, RoundKernels::plan),
      SupportedExpression.of(BRound.class, RoundKernels::plan),
      SupportedExpression.of(UnscaledValue.class, DecimalKernels::unscaledValue),
      SupportedExpression.of(MakeDecimal.class, DecimalKernels::makeDecimal),
      SupportedExpression.of(CaseWhen.class, ConditionalKernels::caseWhen),
      SupportedExpression.of(If.class, ConditionalKernels::ifThen),
      SupportedExpression.of(Coalesce.class, ConditionalKernels::coalesce),
      SupportedExpression.of(Cast.class, CastKernel::plan),
      SupportedExpression.of(Year.class, DateKernels::year),
      SupportedExpression.of(DateAdd.class, DateKernels::dateAddSub),
      SupportedExpression.of(DateSub.class, DateKernels::dateAddSub),
      SupportedExpression.of(StartsWith.class, StringKernels::predicate),
      SupportedExpression.of(EndsWith.class, StringKernels::predicate),
      SupportedExpression.of(Contains.class, StringKernels::predicate),
      SupportedExpression.of(Like.class, StringKernels::like),
      SupportedExpression.of(Length.class, StringKernels::length),
      SupportedExpression.of(Substring.class, StringKernels::substring),
      SupportedExpression.of(Concat.class, StringKernels::concat));

  private static final Map<Class<?>, SupportedExpression> BY_CLASS = new HashMap<>();

  static {
    for (SupportedExpression e : ALL) {
      if (BY_CLASS.put(e.sparkClass(), e) != null) {
        throw new IllegalStateException("two entries for " + e.sparkClass().getName());
      }
    }
  }

  /** The registered classes, for tests and docs. */
  static List<SupportedExpression> all() {
    return ALL;
  }

  static Kernel planOne(Expression e, ExpressionPlanning p) {
    if (e instanceof Alias a) {
      return planOne(a.child(), p);
    }
    SupportedExpression s = BY_CLASS.get(e.getClass());
    if (s == null) {
      throw p.refuse(e.prettyName() + " (" + e.getClass().getSimpleName() + ") is not evaluated columnar: "
          + e.sql());
    }
    int column = p.sourceRowsColumn(e);
    if (column < 0) {
      return s.plan(e, p);
    }
    return new SourceRowKernel(e, p.planInsideSourceRows(() -> s.plan(e, p)), column);
  }
}
