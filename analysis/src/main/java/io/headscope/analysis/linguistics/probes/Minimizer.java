package io.headscope.analysis.linguistics.probes;

import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.CholeskyDecomposition;
import org.apache.commons.math3.linear.DecompositionSolver;
import org.apache.commons.math3.linear.NonPositiveDefiniteMatrixException;
import org.apache.commons.math3.linear.NonSymmetricMatrixException;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.PointValuePair;
import org.apache.commons.math3.optim.SimpleValueChecker;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunctionGradient;
import org.apache.commons.math3.optim.nonlinear.scalar.gradient.NonLinearConjugateGradientOptimizer;
import org.apache.commons.math3.optim.nonlinear.scalar.gradient.Preconditioner;

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
  /** Tolerances of the Brent line search along each direction. */
  static final double LINE_RELATIVE = 1e-8;
  static final double LINE_ABSOLUTE = 1e-12;
  /** The line search's first bracket: features are standardised, so a unit step is a natural scale. */
  private static final double BRACKET = 1.0;

  /** An objective that fills its gradient as it computes its value (unless the gradient is null). */
  @FunctionalInterface
  interface Objective {
    double valueAndGradient(double[] x, double[] gradient);
  }

  private Minimizer() {}

  static double[] minimize(Objective f, double[] start) {
    return minimize(f, start, () -> false, null);
  }

  /**
   * As above; {@code cancelled} is polled at every evaluation, and {@code curvature}, when not null, is
   * a positive definite approximation of the Hessian whose inverse preconditions the search directions
   * (the probes pass their exact Hessian at zero weights; a matrix that is not positive definite is
   * ignored). The preconditioner changes only the path, not the minimum of a convex objective.
   *
   * @throws CancellationException when it turns true
   */
  static double[] minimize(Objective f, double[] start, BooleanSupplier cancelled, double[][] curvature) {
    Objective polled = (x, g) -> {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("probe training cancelled");
      }
      return f.valueAndGradient(x, g);
    };
    Cache cache = new Cache(polled, start.length);
    NonLinearConjugateGradientOptimizer cg = new NonLinearConjugateGradientOptimizer(
        NonLinearConjugateGradientOptimizer.Formula.POLAK_RIBIERE,
        new SimpleValueChecker(RELATIVE, ABSOLUTE, MAX_ITERATIONS), LINE_RELATIVE, LINE_ABSOLUTE, BRACKET,
        preconditioner(curvature));
    PointValuePair best = cg.optimize(new MaxEval(Integer.MAX_VALUE), GoalType.MINIMIZE, new InitialGuess(start),
        new ObjectiveFunction(cache::value), new ObjectiveFunctionGradient(cache::gradient));
    return best.getPoint();
  }

  /** {@code r -> H^-1 r} through a Cholesky factor of {@code H}; the identity without one. */
  private static Preconditioner preconditioner(double[][] curvature) {
    if (curvature == null) {
      return (point, r) -> r.clone();
    }
    try {
      DecompositionSolver h = new CholeskyDecomposition(new Array2DRowRealMatrix(curvature, false)).getSolver();
      return (point, r) -> h.solve(new ArrayRealVector(r, false)).toArray();
    } catch (NonPositiveDefiniteMatrixException | NonSymmetricMatrixException e) {
      return (point, r) -> r.clone();
    }
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
