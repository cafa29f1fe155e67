package io.headscope.app.gui.screen;

import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.session.Session;
import io.headscope.app.gui.session.TwoStacks;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;

/**
 * The skeleton every screen's view model shares, written once: the session, one background job with
 * its running, progress and status, Cancel, the result, and "a new model cancels the run and clears
 * the result". A screen adds what it computes ({@link BackgroundJob#task}) and how it describes it.
 *
 * @param <R> the screen's result
 */
public abstract class ScreenModel<R> {
  protected final Session session;
  protected final BackgroundJob job;
  protected final ReadOnlyObjectWrapper<R> result = new ReadOnlyObjectWrapper<>();

  /** @param idleStatus the status line before the first run: what to pick and press */
  protected ScreenModel(Session session, String idleStatus) {
    this(session, idleStatus, session::fail);
  }

  /** @param errors where failures go (the session's error dialog, or nowhere when the status says it) */
  protected ScreenModel(Session session, String idleStatus, Consumer<Throwable> errors) {
    this.session = session;
    this.job = new BackgroundJob(session.worker(), errors, idleStatus);
    // a new model: nothing of the old one's run stays, neither its result nor its status line (issue 40)
    job.cancelWhenChanged(() -> {
      clear();
      job.reset();
    }, session.modelProperty());
    // an encoder-decoder (T5, BART) opens in All heads only: every other screen says so in one line, nothing of
    // the previous model's result stays (the model change above cleared it)
    session.twoStacksProperty().addListener((o, a, b) -> {
      if (b != null && (a == null || a.model() != b.model())) {
        job.cancel();
        clear();
        job.say(TwoStacks.refusal(b));
      } else if (b == null && a != null) {
        job.reset();
      }
    });
    if (session.twoStacks() != null) {
      job.say(TwoStacks.refusal(session.twoStacks()));
    }
  }

  /** What a new model makes stale: the result, and what a screen adds (its status line goes back to idle). */
  protected void clear() {
    result.set(null);
  }

  /**
   * Whether a run on the current input cannot start: no model, no input yet (the status then says to
   * type one), or a job still running.
   */
  protected boolean noInputOrBusy() {
    if (session.trace() == null) {
      job.say("Type a sentence first.");
    }
    return session.model() == null || session.trace() == null || job.isRunning();
  }

  public ReadOnlyObjectProperty<R> resultProperty() {
    return result.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty runningProperty() {
    return job.runningProperty();
  }

  public ReadOnlyDoubleProperty progressProperty() {
    return job.progressProperty();
  }

  public ReadOnlyStringProperty statusProperty() {
    return job.statusProperty();
  }

  public void cancel() {
    job.cancel();
  }
}
