package io.rowmatch.spark.join;

import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BinaryComparison;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import io.rowmatch.core.table.JoinProbe;

/**
 * A conjunct of an inner join's condition that compares a build-side column with a probe-side column, both int or
 * date and read as they are (TPC-DS q72: {@code inv_quantity_on_hand < cs_quantity}). The join table orders each
 * key's rows by the build column ({@link io.rowmatch.core.table.JoinTable#orderRowsWithinKeys}) and each probe row
 * meets only the run of its key's rows the comparison holds for ({@link JoinProbe#narrowToBand}); the whole
 * condition is still tested on those pairs. A key with many rows on both sides no longer makes every pair of them,
 * which is why such a join may replace Spark's sort-merge join (the placement rule asks {@link #find}).
 *
 * @param buildColumn the compared column's ordinal among the build side's columns
 * @param probeColumn the other's among the probe side's
 * @param op the comparison as "build value op probe value"
 * @param conjunct the condition's conjunct it is (for EXPLAIN)
 */
record JoinBand(int buildColumn, int probeColumn, JoinProbe.Band op, Expression conjunct) {
  /**
   * The first conjunct of {@code condition} that is such a comparison, or null; the condition reads {@code left}'s
   * columns then {@code right}'s, and the build side is the left one when {@code buildLeft}.
   */
  static JoinBand find(Expression condition, List<Attribute> left, List<Attribute> right, boolean buildLeft) {
    if (condition == null) {
      return null;
    }
    for (Expression c : Conjuncts.of(condition)) {
      if (!(c instanceof BinaryComparison cmp) || !(cmp.left() instanceof Attribute a)
          || !(cmp.right() instanceof Attribute b) || !comparable(a.dataType()) || !a.dataType().sameType(
          b.dataType())) {
        continue;
      }
      JoinProbe.Band op = c instanceof LessThan ? JoinProbe.Band.LESS
          : c instanceof LessThanOrEqual ? JoinProbe.Band.LESS_OR_EQUAL
          : c instanceof GreaterThan ? JoinProbe.Band.GREATER
          : c instanceof GreaterThanOrEqual ? JoinProbe.Band.GREATER_OR_EQUAL : null;
      if (op == null) {
        continue;
      }
      int aLeft = ordinal(left, a);
      int aRight = ordinal(right, a);
      int bLeft = ordinal(left, b);
      int bRight = ordinal(right, b);
      // a on one side and b on the other (a column both sides share, as a self join's, is not taken apart here).
      if (aLeft >= 0 && bRight >= 0 && aRight < 0 && bLeft < 0) {
        return buildLeft ? new JoinBand(aLeft, bRight, op, c) : new JoinBand(bRight, aLeft, flipped(op), c);
      }
      if (aRight >= 0 && bLeft >= 0 && aLeft < 0 && bRight < 0) {
        return buildLeft ? new JoinBand(bLeft, aRight, flipped(op), c) : new JoinBand(aRight, bLeft, op, c);
      }
    }
    return null;
  }

  /** Int and date columns: 4-byte integral values in Arrow, compared as Spark compares them. */
  private static boolean comparable(DataType t) {
    return t.sameType(DataTypes.IntegerType) || t.sameType(DataTypes.DateType);
  }

  /** a op b as b op' a. */
  private static JoinProbe.Band flipped(JoinProbe.Band op) {
    return switch (op) {
      case LESS -> JoinProbe.Band.GREATER;
      case LESS_OR_EQUAL -> JoinProbe.Band.GREATER_OR_EQUAL;
      case GREATER -> JoinProbe.Band.LESS;
      case GREATER_OR_EQUAL -> JoinProbe.Band.LESS_OR_EQUAL;
    };
  }

  private static int ordinal(List<Attribute> side, Attribute a) {
    for (int i = 0; i < side.size(); i++) {
      if (side.get(i).exprId().equals(a.exprId())) {
        return i;
      }
    }
    return -1;
  }
}
