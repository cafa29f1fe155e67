package io.headscope.analysis.linguistics.probes;

import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.PointValuePair;
import org.apache.commons.math3.optim.SimpleValueChecker;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunctionGradient;
import org.apache.commons.math3.optim.nonlinear.scalar.gradient.NonLinearConjugateGradientOptimizer;

/**
 * Minimises a smooth convex objective with Commons Math's nonlinear conjugate gradient
 * (Polak-Ribi&egrave;re, restarted on a negative beta and every {@code dim} iterations, Brent line
 * search). A mature implementation instead of our own; Commons Math has no L-BFGS.
 *
 * <p>Stopping rule: when the objective changes by at most {@link #RELATIVE} of its size (or
 * {@link #ABSOLUTE}) from one iteration to the next, or after {@link #MAX_ITERATIONS} iterations,
 * whichever comes first; the point reached is returned either way (never an exception).
 */
final class Minimizer {
  static final double RELATIVE = 1e-9;
  static final double ABSOLUTE = 1e-12;
  static final int MAX_ITERATIONS = 500;
  /** The line search's first bracket: features are standardised, so a unit step is a natural scale. */
  private static final double BRACKET = 1.0;

  /** An objective that fills its gradient as it computes its value (unless the gradient is null). */
  @FunctionalInterface
  interface Objective {
    double valueAndGradient(double[] x, double[] gradient);
  }

  private Minimizer() {}

  static double[] minimize(Objective f, double[] start) {
    return minimize(f, start, () -> false);
  }

  /**
   * As above; {@code cancelled} is polled at every evaluation (a full pass over the data).
   *
   * @throws CancellationException when it turns true
   */
  static double[] minimize(Objective f, double[] start, BooleanSupplier cancelled) {
    Objective polled = (x, g) -> {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("probe training cancelled");
      }
      return f.valueAndGradient(x, g);
    };
    Cache cache = new Cache(polled, start.length);
    NonLinearConjugateGradientOptimizer cg = new NonLinearConjugateGradientOptimizer(
        NonLinearConjugateGradientOptimizer.Formula.POLAK_RIBIERE,
        new SimpleValueChecker(RELATIVE, ABSOLUTE, MAX_ITERATIONS), 1e-8, 1e-12, BRACKET);
    PointValuePair best = cg.optimize(new MaxEval(Integer.MAX_VALUE), GoalType.MINIMIZE, new InitialGuess(start),
        new ObjectiveFunction(cache::value), new ObjectiveFunctionGradient(cache::gradient));
    return best.getPoint();
  }

  /**
   * Commons Math asks for the value and the gradient at the same point separately, and for values
   * alone along each line search: the gradient is computed only when asked for, and a value is reused
   * at the same point.
   */
  private static final class Cache {
    private final Objective f;
    private double[] valueAt;
    private double value;
    private double[] gradientAt;
    private final double[] gradient;

    Cache(Objective f, int dim) {
      this.f = f;
      this.gradient = new double[dim];
    }

    double value(double[] x) {
      if (!Arrays.equals(valueAt, x)) {
        value = f.valueAndGradient(x, null);
        valueAt = x.clone();
      }
      return value;
    }

    double[] gradient(double[] x) {
      if (!Arrays.equals(gradientAt, x)) {
        value = f.valueAndGradient(x, gradient);
        valueAt = x.clone();
        gradientAt = valueAt;
      }
      return gradient.clone();
    }
  }
}
