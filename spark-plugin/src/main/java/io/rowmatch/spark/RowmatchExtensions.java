package io.rowmatch.spark;

import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

import io.rowmatch.spark.rules.ReplaceOperators;
import io.rowmatch.spark.rules.RowmatchColumnarRule;

/**
 * The entry point: {@code spark.sql.extensions=io.rowmatch.spark.RowmatchExtensions}. Registers the
 * columnar rule (replacement before Spark's transitions, Arrow transitions after) and the same
 * replacement as an AQE query-stage preparation rule, so adaptive plans see the decisions too.
 *
 * <p>First it checks that the running Spark is of the line this jar was built for
 * ({@link RowmatchSetupCheck#offForThisSpark}); when not, it injects nothing. Only classes that use no
 * line-specific Spark API are touched before that check ({@link Rules} is loaded only after it).
 */
public final class RowmatchExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    SparkEnv env = SparkEnv.get();
    String running = org.apache.spark.package$.MODULE$.SPARK_VERSION();
    if (!RowmatchSetupCheck.offForThisSpark(env == null ? null : env.conf(), running)) {
      Rules.inject(extensions);
    }
    return BoxedUnit.UNIT;
  }

  /** A class of its own so that the rules' classes load only once the Spark line is known to match. */
  private static final class Rules {
    static void inject(SparkSessionExtensions extensions) {
      extensions.injectColumnar(session -> new RowmatchColumnarRule());
      extensions.injectQueryStagePrepRule(session -> new ReplaceOperators(false));
    }
  }
}
