package io.rowmatch.bench.tpch;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The standard TPC-H schema of a trino-tpch table as Spark types, and the conversion of one generated
 * entity into a Spark row. The library types money as DOUBLE; the standard (and the reference answers)
 * use decimal(15,2), so money columns become exact decimals built from whole cents.
 */
public final class TpchSchema {
  /** decimal(15,2): TPC-H's type for quantities, prices, discounts, taxes and balances. */
  public static final DataType MONEY = DataTypes.createDecimalType(15, 2);

  private TpchSchema() {}

  public static StructType of(TpchTable<?> table) {
    List<StructField> fields = new ArrayList<>();
    for (TpchColumn<?> column : table.getColumns()) {
      fields.add(DataTypes.createStructField(column.getColumnName(), sparkType(column), false));
    }
    return DataTypes.createStructType(fields);
  }

  static DataType sparkType(TpchColumn<?> column) {
    switch (column.getType().getBase()) {
      case IDENTIFIER:
        return DataTypes.LongType;
      case INTEGER:
        return DataTypes.IntegerType;
      case DATE:
        return DataTypes.DateType;
      case DOUBLE:
        return MONEY;
      case VARCHAR:
        return DataTypes.StringType;
      default:
        throw new IllegalArgumentException(
            "TPC-H column " + column.getColumnName() + " has an unknown type " + column.getType().getBase());
    }
  }

  /** One generated entity as a row of {@link #of(TpchTable)}. */
  public static <E extends TpchEntity> Row toRow(TpchTable<E> table, E entity) {
    List<TpchColumn<E>> columns = table.getColumns();
    Object[] values = new Object[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = value(columns.get(i), entity);
    }
    return RowFactory.create(values);
  }

  private static <E extends TpchEntity> Object value(TpchColumn<E> column, E entity) {
    switch (column.getType().getBase()) {
      case IDENTIFIER:
        return column.getIdentifier(entity);
      case INTEGER:
        return column.getInteger(entity);
      case DATE:
        return LocalDate.ofEpochDay(column.getDate(entity));
      case DOUBLE:
        // The generator computes money in whole cents; rounding the double recovers them exactly.
        return BigDecimal.valueOf(Math.round(column.getDouble(entity) * 100.0), 2);
      case VARCHAR:
        return column.getString(entity);
      default:
        throw new IllegalArgumentException(
            "TPC-H column " + column.getColumnName() + " has an unknown type " + column.getType().getBase());
    }
  }
}
