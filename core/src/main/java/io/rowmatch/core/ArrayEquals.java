package io.rowmatch.core;

import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ArrayRangeEquality;
import io.rowmatch.core.compare.RunPath;

/**
 * Whole-array equality with Arrow C++ {@code ArrayEquals} semantics: the same Arrow type (field names,
 * nullability and metadata ignored, so a NullVector equals only a NullVector) and length; the same
 * validity at every position; payloads under nulls ignored; floats by {@link Options}. Nested values
 * (struct, list, large list, map, fixed-size list) compare recursively with the same rules.
 * Variable-width values are compared by runs of valid values, a run's payload in one bulk operation
 * (see {@link io.rowmatch.core.compare.RunPath}).
 *
 * <p>Malformed vectors (buffers shorter than the value count, offsets out of order or past the data,
 * view entries outside their buffers) raise {@link MalformedVectorException} naming the side, column
 * and row, unless the arrays are found unequal first; nothing is read outside a buffer. An empty
 * validity buffer means every value is valid, whatever null count the producer declared.
 */
public final class ArrayEquals {
  private ArrayEquals() {}

  /** The float rules, as Arrow C++ {@code EqualOptions}. */
  public record Options(boolean nansEqual, boolean signedZerosEqual) {
    /** NaN never equals NaN; -0.0 equals 0.0. */
    public static final Options DEFAULT = new Options(false, true);
  }

  public static boolean equals(ValueVector left, ValueVector right) {
    return equals(left, right, Options.DEFAULT);
  }

  public static boolean equals(ValueVector left, ValueVector right, Options options) {
    requireArguments(left, right, options);
    int n = left.getValueCount();
    if (n != right.getValueCount()) {
      return false;
    }
    return rangeEquals(left, 0, right, 0, n, options);
  }

  /**
   * True when the {@code length} values of {@code left} from {@code leftStart} equal those of
   * {@code right} from {@code rightStart} (same type required).
   *
   * @throws IndexOutOfBoundsException when a range does not fit its vector
   */
  public static boolean rangeEquals(ValueVector left, int leftStart, ValueVector right, int rightStart, int length,
      Options options) {
    requireArguments(left, right, options);
    return ArrayRangeEquality.equal(left, leftStart, right, rightStart, length, options.nansEqual(),
        options.signedZerosEqual(), RunPath.AUTO);
  }

  private static void requireArguments(ValueVector left, ValueVector right, Options options) {
    if (left == null || right == null || options == null) {
      throw new IllegalArgumentException("left, right and options must not be null");
    }
  }
}
