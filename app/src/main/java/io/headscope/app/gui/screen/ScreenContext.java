package io.headscope.app.gui.screen;

import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.dialog.DialogService;
import io.headscope.app.gui.session.Session;
import io.headscope.model.repository.ModelRepository;
import java.util.List;
import javafx.collections.ObservableList;

/**
 * All a screen may reach: the session (model, input, traces, selection), the dialog service (file
 * choosers, exports, errors), the corpus files opened in any screen, and two facts the main window
 * owns (which models can be loaded, the current input's head scores), as values, not as the window.
 *
 * @param loadable the models the Model menu can load (names or folders), for screens that take a second
 * @param scores the current input's head scores, one per head, layer by layer
 */
public record ScreenContext(Session session, DialogService dialogs, Sources sources, ModelRepository repository,
    List<String> loadable, ObservableList<HeadScore> scores) {}
