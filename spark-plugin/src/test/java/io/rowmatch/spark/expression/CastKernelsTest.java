package io.rowmatch.spark.expression;

import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.Option;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * Casts date -> timestamp, timestamp -> date (in fixed-offset zones and zones with transitions, around DST
 * changes, before 1970 and far in the future) and string -> date (Spark's accepted forms, padding, invalid
 * strings: null, or Spark's error under ANSI) against Spark's own Cast row by row (SparkDifferential).
 */
class CastKernelsTest extends AllocatorTest {
  private static final String[] ZONES = {"UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "+05:45",
      "-08:00", "Australia/Lord_Howe", "Pacific/Apia"};

  private static Object[][] column(Object[] values) {
    Object[][] rows = new Object[values.length][];
    for (int i = 0; i < values.length; i++) {
      rows[i] = new Object[] {values[i]};
    }
    return rows;
  }

  private void check(Expression child, DataType from, DataType to, Object[] values, String zone) {
    for (boolean ansi : new boolean[] {false, true}) {
      Expression e = new Cast(child, to, Option.apply(zone), DivisionKernelsTest.mode(ansi));
      SparkDifferential.check(allocator, e, new DataType[] {from}, column(values), zone);
    }
  }

  @Test
  void datesAndTimestampsInTheSessionZoneEqualSparks() {
    Random rnd = new Random(59);
    int[] dayEdges = {-719162, -141427, -1, 0, 1, 2932896, 18000, 19083, 19446, 19300, -25567};
    for (String zone : ZONES) {
      for (int n : SparkDifferential.SIZES) {
        Object[] days = new Object[n];
        Object[] micros = new Object[n];
        for (int i = 0; i < n; i++) {
          days[i] = rnd.nextInt(10) == 0 ? null : rnd.nextInt(3) == 0 ? dayEdges[rnd.nextInt(dayEdges.length)]
              : rnd.nextInt(80000) - 40000;
          long m = switch (rnd.nextInt(5)) {
            case 0 -> (rnd.nextInt(80000) - 40000) * 86_400_000_000L; // midnights (UTC)
            case 1 -> -1L - rnd.nextInt(1000);
            case 2 -> 1_679_792_400_000_000L + (rnd.nextInt(7200) - 3600) * 1_000_000L; // around a DST change
            default -> (rnd.nextLong() >> 8) % 253_402_300_800_000_000L;
          };
          micros[i] = rnd.nextInt(10) == 0 ? null : m;
        }
        check(new BoundReference(0, DataTypes.DateType, true), DataTypes.DateType, DataTypes.TimestampType, days,
            zone);
        check(new BoundReference(0, DataTypes.TimestampType, true), DataTypes.TimestampType, DataTypes.DateType,
            micros, zone);
      }
    }
  }

  @Test
  void stringsToDatesEqualSparks() {
    String[] valid = {"2020-01-01", "1970-01-01", "0001-01-01", "9999-12-31", "2020", "2020-2", "2020-02-29",
        " 2021-03-04 ", "2021-03-04T12:00:00", "2021-03-04 garbage", "-0044-03-15", "+10000-01-01", "1969-12-31\t",
        "2019-12-31T", "12345-06-07"};
    String[] invalid = {"", " ", "2021-02-30", "2021-13-01", "abc", "2021/01/01", "20210101x", "日本", "2021-1-1-1",
        "2019-02-29"};
    Random rnd = new Random(61);
    for (int n : SparkDifferential.SIZES) {
      for (boolean withInvalid : new boolean[] {false, true}) {
        Object[] values = new Object[n];
        for (int i = 0; i < n; i++) {
          String s = withInvalid && rnd.nextInt(4) == 0 ? invalid[rnd.nextInt(invalid.length)]
              : valid[rnd.nextInt(valid.length)];
          values[i] = rnd.nextInt(10) == 0 ? null : UTF8String.fromString(s);
        }
        check(new BoundReference(0, DataTypes.StringType, true), DataTypes.StringType, DataTypes.DateType, values,
            "UTC");
      }
    }
  }
}
