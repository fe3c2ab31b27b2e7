package io.rowmatch.bench.core;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * The anchor {@code MultiColumnComparator} replaces: a list of per-column closures, an outer lambda for
 * validity wrapping an inner one for values, each called through an interface (megamorphic once the
 * columns have different types), reading through Arrow's own accessors.
 */
final class ClosureComparator {
  interface RowPredicate {
    boolean test(int l, int r);
  }

  private final List<RowPredicate> columns = new ArrayList<>();

  ClosureComparator(List<FieldVector> left, List<FieldVector> right, boolean[] nullsEqual, boolean[] nansEqual) {
    for (int c = 0; c < left.size(); c++) {
      RowPredicate values = valueComparator(left.get(c), right.get(c), nansEqual[c]);
      FieldVector l = left.get(c);
      FieldVector r = right.get(c);
      boolean ne = nullsEqual[c];
      columns.add((i, j) -> {
        boolean ln = l.isNull(i);
        boolean rn = r.isNull(j);
        if (ln || rn) {
          return ln && rn && ne;
        }
        return values.test(i, j);
      });
    }
  }

  private static RowPredicate valueComparator(FieldVector left, FieldVector right, boolean nansEqual) {
    if (left instanceof BigIntVector) {
      BigIntVector l = (BigIntVector) left;
      BigIntVector r = (BigIntVector) right;
      return (i, j) -> l.get(i) == r.get(j);
    }
    if (left instanceof IntVector) {
      IntVector l = (IntVector) left;
      IntVector r = (IntVector) right;
      return (i, j) -> l.get(i) == r.get(j);
    }
    if (left instanceof Float8Vector) {
      Float8Vector l = (Float8Vector) left;
      Float8Vector r = (Float8Vector) right;
      return (i, j) -> {
        double a = l.get(i);
        double b = r.get(j);
        return a == b || (nansEqual && Double.isNaN(a) && Double.isNaN(b));
      };
    }
    if (left instanceof VarCharVector) {
      VarCharVector l = (VarCharVector) left;
      VarCharVector r = (VarCharVector) right;
      return (i, j) -> ByteFunctionHelpers.equal(l.getDataBuffer(), l.getStartOffset(i), l.getEndOffset(i),
          r.getDataBuffer(), r.getStartOffset(j), r.getEndOffset(j)) == 1;
    }
    throw new IllegalArgumentException("baseline does not handle " + left.getField());
  }

  boolean equal(int l, int r) {
    for (RowPredicate p : columns) {
      if (!p.test(l, r)) {
        return false;
      }
    }
    return true;
  }
}
