@implementation Greeter
- (NSString *)greet:(NSArray *)names {
    return [names componentsJoinedByString:;
}
