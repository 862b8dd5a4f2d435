// Says hello.
#import <Foundation/Foundation.h>

@interface Greeter : NSObject
@property (nonatomic, copy) NSString *name;
- (NSString *)greet:(NSArray<NSString *> *)names;
@end

@implementation Greeter
- (NSString *)greet:(NSArray<NSString *> *)names {
    if (names.count == 0) {
        return [NSString stringWithFormat:@"hello, %@", self.name];
    }
    return [names componentsJoinedByString:@"\n"];
}
@end

int main(int argc, const char *argv[]) {
    @autoreleasepool {
        Greeter *g = [[Greeter alloc] init];
        g.name = @"world";
        NSLog(@"%@", [g greet:@[@"a", @"b"]]);
    }
    return 0;
}
