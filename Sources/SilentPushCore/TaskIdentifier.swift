/// What a background task's identifier may be (`BGTaskRequest.identifier`, an Info.plist's
/// `BGTaskSchedulerPermittedIdentifiers`): one rule for the admin API, the config file and
/// their messages. Apple names no length limit; 200 is *assumed*, and no `/`, as the admin
/// API carries an identifier in a path.
package enum TaskIdentifier {
    /// The longest identifier taken, in characters.
    package static let maximumLength = 200

    /// Whether `text` is an identifier: 1 to `maximumLength` visible ASCII characters, no `/`.
    package static func isValid(_ text: some StringProtocol) -> Bool {
        APNsRequestValidator.isVisibleName(text, maximumLength: maximumLength)
    }

    /// The rule, as messages say it.
    package static let rule = "1 to \(maximumLength) visible ASCII characters, no /"
}
