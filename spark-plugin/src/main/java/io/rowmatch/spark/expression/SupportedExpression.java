package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * One Spark expression class the columnar kernels evaluate: it plans an instance into a {@link Kernel}, or
 * refuses with the reason it stays Spark's ({@code throw p.refuse(reason)}). Registered once, by class, in
 * {@link Expressions}.
 */
interface SupportedExpression {
  Class<? extends Expression> sparkClass();

  /** The kernel for {@code e} (children planned through {@code p.child}); never one that might differ from Spark. */
  Kernel plan(Expression e, ExpressionPlanning p);

  static SupportedExpression of(Class<? extends Expression> c, java.util.function.BiFunction<Expression,
      ExpressionPlanning, Kernel> planner) {
    return new SupportedExpression() {
      @Override
      public Class<? extends Expression> sparkClass() {
        return c;
      }

      @Override
      public Kernel plan(Expression e, ExpressionPlanning p) {
        return planner.apply(e, p);
      }
    };
  }
}
