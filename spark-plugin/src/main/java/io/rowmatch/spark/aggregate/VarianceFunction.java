package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.CentralMomentAgg;
import org.apache.spark.sql.catalyst.expressions.aggregate.StddevPop;
import org.apache.spark.sql.catalyst.expressions.aggregate.StddevSamp;
import org.apache.spark.sql.catalyst.expressions.aggregate.VariancePop;
import org.apache.spark.sql.catalyst.expressions.aggregate.VarianceSamp;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.DoubleType$;

/**
 * stddev_pop, stddev_samp (stddev, std), var_pop, var_samp (variance): Spark's CentralMomentAgg of order 2, with
 * its buffer (n, avg, m2) as doubles and its update and merge formulas step for step, so every buffer and result
 * is the double Spark computes for the same rows in the same order. A sample statistic of one row is null, or NaN
 * under {@code spark.sql.legacy.statisticalAggregate} (the function's nullOnDivideByZero, fixed when it was made).
 */
public final class VarianceFunction implements SupportedFunction {
  /** What the result is made of (m2 / n or m2 / (n - 1), with or without the square root). */
  enum Result {
    STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP
  }

  private static final FunctionKernel[][] KERNELS = new FunctionKernel[Result.values().length][2];

  static {
    for (Result r : Result.values()) {
      for (int nan = 0; nan < 2; nan++) {
        boolean nanOnOneRow = nan == 1;
        KERNELS[r.ordinal()][nan] = FunctionKernel.of(r + (nanOnOneRow ? "_NAN_ON_ONE_ROW" : ""),
            (spec, allocator, timeZone) -> new VarianceKernel(spec, allocator, timeZone, r, nanOnOneRow),
            VarianceFunction::oneRowBuffers);
      }
    }
  }

  private final Class<? extends CentralMomentAgg> sparkClass;
  private final Result result;

  private VarianceFunction(Class<? extends CentralMomentAgg> sparkClass, Result result) {
    this.sparkClass = sparkClass;
    this.result = result;
  }

  static final VarianceFunction STDDEV_POP = new VarianceFunction(StddevPop.class, Result.STDDEV_POP);
  static final VarianceFunction STDDEV_SAMP = new VarianceFunction(StddevSamp.class, Result.STDDEV_SAMP);
  static final VarianceFunction VAR_POP = new VarianceFunction(VariancePop.class, Result.VAR_POP);
  static final VarianceFunction VAR_SAMP = new VarianceFunction(VarianceSamp.class, Result.VAR_SAMP);

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return sparkClass;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    CentralMomentAgg m = (CentralMomentAgg) f;
    if (!(m.child().dataType() instanceof DoubleType) || !(f.dataType() instanceof DoubleType)) {
      throw p.refuse(p.sql + " over " + m.child().dataType().simpleString() + " is not supported");
    }
    p.expectBuffers(DoubleType$.MODULE$, DoubleType$.MODULE$, DoubleType$.MODULE$);
    boolean nullOnDivideByZero = switch (result) {
      case STDDEV_POP, VAR_POP -> true; // a population statistic never divides by zero rows (n = 0 is null)
      case STDDEV_SAMP -> ((StddevSamp) f).nullOnDivideByZero();
      case VAR_SAMP -> ((VarianceSamp) f).nullOnDivideByZero();
    };
    return p.spec(KERNELS[result.ordinal()][nullOnDivideByZero ? 0 : 1], p.inputs(m.child()), false, false);
  }

  /**
   * A partial aggregate that stops aggregating: each row's buffer is Spark's update of the initial (0, 0, 0) by
   * that row alone, computed by the same steps as the kernel's (so -0.0, infinities and NaN come out as Spark's).
   */
  private static void oneRowBuffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    ValueVector input = columns[f.inputOrdinals[0]];
    double[] x = p.doubles(rows); // scratch charged to the task, not a new array per batch
    NumericColumns.readDoubles(input, rows, x, p.longs(rows));
    Float8Vector n = (Float8Vector) p.own(f.bufferFields[0], owned);
    Float8Vector avg = (Float8Vector) p.own(f.bufferFields[1], owned);
    Float8Vector m2 = (Float8Vector) p.own(f.bufferFields[2], owned);
    n.allocateNew(rows);
    avg.allocateNew(rows);
    m2.allocateNew(rows);
    double[] state = new double[3];
    for (int i = 0; i < rows; i++) {
      state[0] = 0.0;
      state[1] = 0.0;
      state[2] = 0.0;
      if (!input.isNull(i)) {
        VarianceKernel.update(state, 0, x[i]);
      }
      n.set(i, state[0]);
      avg.set(i, state[1]);
      m2.set(i, state[2]);
    }
    n.setValueCount(rows);
    avg.setValueCount(rows);
    m2.setValueCount(rows);
    out.add(n);
    out.add(avg);
    out.add(m2);
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return true; // Spark's CentralMomentAgg keeps its moments where the input is null
  }
}
